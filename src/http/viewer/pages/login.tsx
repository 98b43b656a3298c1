/** @jsxImportSource hono/jsx */
/**
 * Logging in and out (DESIGN.md 13). A token posted from the login form, or
 * a one-time link from `zerodb ui`, becomes a server-side session whose
 * random id is the only thing in the cookie (HttpOnly, SameSite=Strict).
 * The login POST passes the Origin check (no login CSRF); the one-time
 * code is spent on first use and the browser is sent on at once, so the
 * URL left in history is dead.
 */
import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { readForm } from "../form.ts";
import { type ViewerEnv, checkCsrf, cookieName, reachedOverHttps, refusal, sameOrigin } from "../guard.ts";
import { ErrorBox, Layout } from "../layout.tsx";

function LoginPage(props: { error?: string }) {
  return (
    <Layout title="Log in">
      <h1>Log in to the zerodb viewer</h1>
      {props.error !== undefined && <ErrorBox message={props.error} />}
      <form method="post" action="/ui/login">
        <label>
          Token <input type="password" name="token" autocomplete="off" required size={48} />
        </label>
        <button type="submit">Log in</button>
      </form>
      <h2>About this server</h2>
      <p>This is a zerodb server: the HTTP API of a local-first memory database for AI agents, and a viewer of its memory.</p>
      <ul>
        <li>
          <code>GET /healthz</code>: is it up (no token needed).
        </li>
        <li>
          <code>/v1/…</code>: the API (turns, sessions, search, facts, forget, objects, links, stats), each call with{" "}
          <code>Authorization: Bearer &lt;token&gt;</code>. A token belongs to one tenant; create one on the server's machine with{" "}
          <code>zerodb token create --tenant NAME</code>.
        </li>
        <li>
          The local CLI and MCP server use tenant <code>local</code>; <code>zerodb ui</code> opens this viewer on it with a one-time login link.
        </li>
      </ul>
    </Layout>
  );
}

/**
 * Sets the session cookie: the session id only, for this server, never
 * readable by script or sent cross-site, and over https (a TLS proxy in
 * front included) never sent over plain http.
 */
function startSession(c: Context<ViewerEnv>, sid: string): Response {
  setCookie(c, cookieName(c), sid, { httpOnly: true, sameSite: "Strict", path: "/", secure: reachedOverHttps(c) });
  return c.redirect("/ui", 303);
}

/** The login page, or the overview for a browser already logged in. */
export async function loginPage(c: Context<ViewerEnv>): Promise<Response> {
  if (await c.var.viewer.session(getCookie(c, cookieName(c)))) return c.redirect("/ui", 303);
  return c.html(<LoginPage />);
}

/** Registers /ui/login, /ui/login/once and /ui/logout (before the session gate). */
export function loginPages(ui: Hono<ViewerEnv>): void {
  ui.get("/login", loginPage);
  ui.post("/login", async (c) => {
    if (!sameOrigin(c)) return refusal(403, "This form was not sent from this viewer's own page.");
    const form = await readForm(c.req.raw);
    const sid = await c.var.viewer.loginWithToken(form.get("token") ?? "");
    if (sid === undefined) return c.html(<LoginPage error="That token is not valid." />, 401);
    return startSession(c, sid);
  });
  ui.get("/login/once", (c) => {
    const sid = c.var.viewer.loginWithCode(c.req.query("code") ?? "");
    if (sid === undefined)
      return c.html(<LoginPage error="That login link was used already or has expired: run zerodb ui again, or log in with a token." />, 401);
    return startSession(c, sid);
  });
  ui.post("/logout", async (c) => {
    const sid = getCookie(c, cookieName(c));
    const session = await c.var.viewer.session(sid);
    if (session && sid !== undefined) {
      c.set("session", session);
      const refused = checkCsrf(await readForm(c.req.raw), c);
      if (refused) return refused;
      c.var.viewer.logout(sid);
    }
    deleteCookie(c, cookieName(c), { path: "/", secure: reachedOverHttps(c) });
    return c.redirect("/ui/login", 303);
  });
}
