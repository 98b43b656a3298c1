/**
 * The server check of DESIGN.md 7.1: when a URL is configured (--url,
 * ZERODB_URL or config `url`), its GET /healthz must answer `{ok: true}`;
 * with a token configured too, GET /v1/stats must answer with it, which
 * proves the token is accepted and the store behind the server (a team
 * server's PostgreSQL) answers. This is the user's own server; nothing else
 * is ever contacted (D1).
 */
import { resolveToken } from "../client/token.ts";
import { toZeroDbError } from "../errors.ts";
import { type Check, type DoctorContext, check, why } from "./types.ts";

const TIMEOUT_MS = 5_000;

/** GET <url>/healthz, or a pass saying there is no server to check. */
export async function serverCheck(ctx: DoctorContext): Promise<Check> {
  const url = ctx.config.url;
  if (url === undefined) return check("server", "pass", "no server URL configured: the local store is used directly");
  const target = new URL("healthz", url.endsWith("/") ? url : `${url}/`).toString();
  const fix = `start it (zerodb serve) or correct the URL (--url, ZERODB_URL or "url" in ${ctx.config.configFile})`;
  try {
    const res = await fetch(target, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "manual" });
    const body = (await res.json().catch(() => undefined)) as { ok?: unknown; version?: unknown } | undefined;
    if (!res.ok || body?.ok !== true) return check("server", "fail", `${target} answered ${res.status} without {"ok": true}: it is not a zerodb server`, fix);
    const alive = `${target} answers (zerodb ${String(body.version ?? "?")})`;
    return await storeBehind(ctx, url, alive);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
    return check("server", "fail", `${target} does not answer (${cause ?? why(err)})`, fix);
  }
}

/** With a token configured, the server's store answers an authenticated read; without one, the liveness line alone. */
async function storeBehind(ctx: DoctorContext, url: string, alive: string): Promise<Check> {
  let token: string;
  try {
    token = resolveToken(ctx.config);
  } catch (err) {
    const e = toZeroDbError(err);
    // No token anywhere: the check stays what it was, liveness only.
    if (e.code === "unauthorized") return check("server", "pass", alive);
    return check("server", "fail", `${alive}, but the token cannot be read: ${e.message}`, "fix the token file (see README: remote mode)");
  }
  const stats = new URL("v1/stats", url.endsWith("/") ? url : `${url}/`).toString();
  const res = await fetch(stats, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "manual" });
  const body = (await res.json().catch(() => undefined)) as { tenant?: unknown; last_lsn?: unknown; error?: { message?: unknown } } | undefined;
  if (res.status === 401 || res.status === 403)
    return check(
      "server",
      "fail",
      `${alive}, but it refused the token`,
      "create a token on the server's store (zerodb token create --tenant NAME, with --database for a team server) and use it",
    );
  if (!res.ok) {
    const message = typeof body?.error?.message === "string" ? body.error.message : `HTTP ${res.status}`;
    return check(
      "server",
      "fail",
      `${alive}, but its store does not answer: ${message}`,
      "check the server's store on its machine (zerodb doctor there, with --database for a team server)",
    );
  }
  return check("server", "pass", `${alive}; the token acts in tenant ${String(body?.tenant)}, whose store answers (last lsn ${String(body?.last_lsn)})`);
}
