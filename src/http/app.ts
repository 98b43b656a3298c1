/**
 * createApp: the HTTP door of DESIGN.md 6.1 as a Hono app bound to no port
 * (STYLE.md habit 4): tests call `app.request()`, `serve.ts` binds it. Every
 * route validates with its operation's zod schema and calls the same Memory
 * function the CLI and MCP call (D3).
 */
import { Hono } from "hono";
import { requireToken } from "./auth.ts";
import type { App, AppOptions, HttpEnv, RouteGroup } from "./env.ts";
import { errorsOnly, notFound, onError } from "./errors.ts";
import { requestLog } from "./log.ts";
import { diffRoutes } from "./routes/diff.ts";
import { factRoutes } from "./routes/facts.ts";
import { forgetRoutes } from "./routes/forget.ts";
import { healthRoutes } from "./routes/health.ts";
import { homeRoutes } from "./routes/home.ts";
import { linkRoutes } from "./routes/links.ts";
import { objectRoutes } from "./routes/objects.ts";
import { searchRoutes } from "./routes/search.ts";
import { sessionRoutes } from "./routes/sessions.ts";
import { statsRoutes } from "./routes/stats.ts";
import { syncRoutes } from "./routes/sync.ts";
import { turnRoutes } from "./routes/turns.ts";
import { whoamiRoutes } from "./routes/whoami.ts";
import { createViewer } from "./viewer/state.ts";

/** The routes behind the token check, one group per file; add a group with one line. */
const V1: RouteGroup[] = [whoamiRoutes, turnRoutes, sessionRoutes, searchRoutes, factRoutes, forgetRoutes, statsRoutes, objectRoutes, linkRoutes, diffRoutes];

/** The zerodb HTTP app over a store. */
export function createApp(opts: AppOptions): App {
  const log = opts.log ?? (() => {});
  const app = new Hono<HttpEnv>();
  app.onError(onError(log));
  app.notFound(notFound);
  app.use(requestLog(log));
  app.use(errorsOnly);
  healthRoutes(app);
  homeRoutes(app, { store: opts.store, viewer: opts.viewer ?? createViewer({ store: opts.store }), log });
  app.use("/v1/*", requireToken(opts.store));
  for (const group of V1) group(app);
  syncRoutes(opts.store)(app);
  return app;
}
