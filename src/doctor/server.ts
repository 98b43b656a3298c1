/**
 * The server check of DESIGN.md 7.1: when a URL is configured (--url,
 * ZERODB_URL or config `url`), its GET /healthz must answer `{ok: true}`.
 * This is the user's own server; nothing else is ever contacted (D1).
 */
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
    return check("server", "pass", `${target} answers (zerodb ${String(body.version ?? "?")})`);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
    return check("server", "fail", `${target} does not answer (${cause ?? why(err)})`, fix);
  }
}
