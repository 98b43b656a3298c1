/**
 * The viewer's gates, in the order they run (DESIGN.md 13): security headers
 * on every answer, the Host check against DNS rebinding, the session cookie,
 * and the CSRF check on every POST. A refusal is a short HTML page; it says
 * what to do, never which check of a secret failed.
 */
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { Memory } from "../../store/types.ts";
import type { Viewer, ViewerSession } from "./state.ts";

/**
 * The name of the cookie holding the session id: cookies are not kept apart
 * by port (RFC 6265 section 8.5), so each port has its own name and a
 * `zerodb ui` beside a `zerodb serve` does not log the other out.
 */
export function cookieName(c: Context): string {
  const port = /:(\d+)$/.exec(c.req.header("host") ?? "")?.[1];
  return port === undefined ? "zerodb_session" : `zerodb_session_${port}`;
}

/**
 * Whether the browser reached this server over https: directly, or through
 * the TLS proxy of a `serve --public-host` that says so in
 * `X-Forwarded-Proto` (or RFC 7239 `Forwarded: proto=`), the first hop's
 * value. The session cookie is then `Secure` (RFC 6265 section 4.1.2.5);
 * on plain http (a loopback `zerodb ui`) it must not be, or the browser
 * drops it.
 */
export function reachedOverHttps(c: Context<ViewerEnv>): boolean {
  if (new URL(c.req.url).protocol === "https:") return true;
  if (!c.var.viewer.trustsForwardedProto) return false;
  const xfp = c.req.header("x-forwarded-proto");
  if (xfp !== undefined) return xfp.split(",")[0]!.trim().toLowerCase() === "https";
  const first = c.req.header("forwarded")?.split(",")[0] ?? "";
  const proto = /(?:^|;)\s*proto\s*=\s*"?([A-Za-z][A-Za-z0-9+.-]*)"?\s*(?:;|$)/.exec(first)?.[1];
  return proto?.toLowerCase() === "https";
}

/**
 * No script at all (the viewer needs none), styles and images from this
 * server only, forms to this server only, never framed (CSP Level 3).
 */
export const CSP =
  "default-src 'self'; script-src 'none'; object-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Hono's environment for the viewer: the session and its tenant's Memory. */
export interface ViewerEnv {
  Variables: { memory: Memory; session: ViewerSession; sid: string; viewer: Viewer };
}

/** A plain refusal page with a status. */
export function refusal(status: 400 | 401 | 403, message: string): Response {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>zerodb: refused</title></head><body><h1>Refused</h1><p>${message}</p><p><a href="/ui">Back to the viewer</a></p></body></html>`;
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": CSP } });
}

/** Security headers for every viewer answer (a route may set its own stricter CSP). */
export const securityHeaders: MiddlewareHandler<ViewerEnv> = async (c, next) => {
  await next();
  const h = c.res.headers;
  if (!h.has("content-security-policy")) h.set("content-security-policy", CSP);
  h.set("x-content-type-options", "nosniff");
  h.set("x-frame-options", "DENY");
  // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` on the form POSTs the CSRF check reads.
  h.set("referrer-policy", "same-origin");
  h.set("cross-origin-opener-policy", "same-origin");
  h.set("cross-origin-resource-policy", "same-origin");
  if (!h.has("cache-control")) h.set("cache-control", "no-store");
};

/** Refuses a Host this server does not answer to: a DNS-rebinding page gets nothing. */
export function checkHost(viewer: Viewer): MiddlewareHandler<ViewerEnv> {
  return async (c, next) => {
    if (!viewer.allowsHost(c.req.header("host"))) return refusal(403, "This viewer answers only requests addressed to its own host name.");
    c.set("viewer", viewer);
    await next();
  };
}

/** Strings equal in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A state change must come from a page of this server: the browser's Origin
 * (always sent on a cross-site or same-site POST by current browsers) must
 * be this server's own, per the Fetch standard's CSRF advice.
 */
export function sameOrigin(c: Context): boolean {
  const origin = c.req.header("origin");
  const host = c.req.header("host");
  if (origin === undefined || host === undefined) return false;
  // The scheme may differ behind a TLS proxy; the host must be this one's.
  return origin === `http://${host}` || origin === `https://${host}`;
}

/** Requires a live session: sets the session and its tenant's Memory, or sends the browser to log in. */
export function requireSession(memories: (tenant: string) => Memory): MiddlewareHandler<ViewerEnv> {
  return async (c, next) => {
    const sid = getCookie(c, cookieName(c));
    const session = await c.var.viewer.session(sid);
    if (!session || sid === undefined) {
      if (c.req.method === "GET" || c.req.method === "HEAD") return c.redirect("/ui/login", 303);
      return refusal(401, "Your session has ended: log in again.");
    }
    c.set("session", session);
    c.set("sid", sid);
    c.set("memory", memories(session.tenant));
    await next();
  };
}

/** Double protection on every POST of a session: the Origin check and the session's CSRF token. */
export function checkCsrf(form: URLSearchParams, c: Context<ViewerEnv>): Response | undefined {
  if (!sameOrigin(c)) return refusal(403, "This form was not sent from this viewer's own page.");
  const sent = form.get("_csrf") ?? "";
  if (!sameSecret(sent, c.var.session.csrf)) return refusal(403, "This form is stale or was not sent from this viewer: reload the page and try again.");
  return undefined;
}
