/** @jsxImportSource hono/jsx */
/**
 * The viewer as a Hono sub-app mounted at /ui (DESIGN.md 13): security
 * headers and the Host check on everything, login before the session gate,
 * then the pages, each acting as the tenant of its session (I5).
 */
import { type ErrorHandler, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { CODES, toZeroDbError } from "../../errors.ts";
import type { Memory, Store } from "../../store/types.ts";
import { CSS } from "./css.ts";
import { type ViewerEnv, checkHost, requireSession, securityHeaders } from "./guard.ts";
import { ErrorBox, Layout } from "./layout.tsx";
import { capturePages } from "./pages/capture.tsx";
import { contextPages } from "./pages/context.tsx";
import { doctorPages } from "./pages/doctor.tsx";
import { factPages } from "./pages/facts.tsx";
import { forgetPages } from "./pages/forget.tsx";
import { linkPages } from "./pages/links.tsx";
import { loginPage, loginPages } from "./pages/login.tsx";
import { objectPages } from "./pages/objects.tsx";
import { searchPages } from "./pages/search.tsx";
import { sessionPages } from "./pages/sessions.tsx";
import { statsPages } from "./pages/stats.tsx";
import type { Viewer } from "./state.ts";

/** What the viewer's routes need. */
export interface ViewerRoutesOptions {
  store: Store;
  viewer: Viewer;
  log: (line: string) => void;
}

/** `GET /`: the login page (with what this server is), under the same headers and Host check; never any tenant's data. */
export function viewerHome(opts: ViewerRoutesOptions): Hono<ViewerEnv> {
  const home = new Hono<ViewerEnv>();
  home.onError(htmlError(opts.log));
  home.get("/", securityHeaders, checkHost(opts.viewer), loginPage);
  return home;
}

/** The error page: a ZeroDbError's status and safe message; anything else logged once and shown as "internal error". */
function htmlError(log: (line: string) => void): ErrorHandler<ViewerEnv> {
  return (err, c) => {
    const e = toZeroDbError(err);
    const status = CODES[e.code].status;
    if (status >= 500) log(`zerodb: viewer ${e.code} on ${c.req.method}: ${e.cause instanceof Error ? e.cause.message : e.message}`);
    const message = e.code === "internal" ? "internal error" : e.message;
    const session = c.get("session");
    const frame = session ? { tenant: session.tenant, csrf: session.csrf } : {};
    return c.html(
      <Layout title="Error" {...frame}>
        <h1>Error</h1>
        <ErrorBox message={message} />
      </Layout>,
      status as ContentfulStatusCode,
    );
  };
}

/** The viewer's routes over a store, for mounting at /ui. */
export function viewerRoutes(opts: ViewerRoutesOptions): Hono<ViewerEnv> {
  const memories = new Map<string, Memory>();
  const memoryOf = (tenant: string): Memory => {
    let m = memories.get(tenant);
    if (!m) memories.set(tenant, (m = opts.store.memory(tenant)));
    return m;
  };
  const ui = new Hono<ViewerEnv>();
  ui.onError(htmlError(opts.log));
  ui.use("*", securityHeaders, checkHost(opts.viewer));
  ui.get("/app.css", (c) => c.body(CSS, 200, { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" }));
  loginPages(ui);
  ui.use("*", requireSession(memoryOf));
  for (const pages of [sessionPages, searchPages, factPages, linkPages, objectPages, forgetPages, statsPages, contextPages, doctorPages]) pages(ui);
  capturePages(ui, opts.store);
  return ui;
}
