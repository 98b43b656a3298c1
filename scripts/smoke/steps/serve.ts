/**
 * Step `serve`: `zerodb serve` on a free loopback port (--port 0, the URL read
 * from its "listening on" line) answers /healthz without a token, refuses a
 * request without one, stores an append and finds it by search with a token
 * from `zerodb token create` (DESIGN.md 6.1), and stops cleanly on SIGTERM.
 */
import { lineReader } from "../lines.ts";
import { COMMAND_TIMEOUT_MS, type Sandbox, StepFailure, expect, runJson, within } from "../sandbox.ts";

/** Fetches a URL on the server, bounded in time; returns the status and the parsed JSON body. */
async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(COMMAND_TIMEOUT_MS) }).catch((err: Error) => {
    throw new StepFailure(`${init.method ?? "GET"} ${url} failed: ${err.message}`);
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new StepFailure(`${init.method ?? "GET"} ${url} answered ${res.status} with no JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  return { status: res.status, body };
}

/** Serves the store over HTTP and drives it with a token. */
export async function serve(sb: Sandbox): Promise<void> {
  const created = await runJson<{ token?: string }>(sb, ["token", "create", "--tenant", "smoke"]);
  expect(typeof created.token === "string" && created.token.length > 16, `token create returned no token: ${JSON.stringify(created).slice(0, 200)}`);
  const auth = { Authorization: `Bearer ${created.token}` };

  const proc = sb.spawn(["serve", "--port", "0"]);
  const err = lineReader(proc.stderr);
  // Drained so a full pipe can never stall the server.
  const stdout = new Response(proc.stdout).text();
  let base: string | undefined;
  while (!base) {
    const line = await err.next("a 'listening on' line from zerodb serve").catch((e: Error) => {
      throw new StepFailure(`${e.message}${err.seen.length ? ` (stderr: ${err.seen.join(" | ").slice(0, 300)})` : ""}`);
    });
    base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
  }

  const health = await call(`${base}/healthz`);
  expect(
    health.status === 200 && health.body.ok === true && typeof health.body.version === "string",
    `GET /healthz answered ${health.status} ${JSON.stringify(health.body)}`,
  );

  const word = `httpword${Math.random().toString(36).slice(2, 8)}`;
  const anonymous = await call(`${base}/v1/search?q=${word}`);
  expect(anonymous.status === 401, `GET /v1/search without a token answered ${anonymous.status}, not 401`);

  const appended = await call(`${base}/v1/turns`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ session: "smoke/http", entries: [{ role: "note", content: `the http ${word} note` }] }),
  });
  const lsn = appended.body?.entries?.[0]?.lsn;
  expect(appended.status === 200 && typeof lsn === "number", `POST /v1/turns answered ${appended.status} ${JSON.stringify(appended.body).slice(0, 200)}`);

  const found = await call(`${base}/v1/search?q=${word}`, { headers: auth });
  const hits: { lsn: number; session: string }[] = found.body?.hits ?? [];
  expect(
    found.status === 200 && hits.some((h) => h.lsn === lsn && h.session === "smoke/http"),
    `GET /v1/search?q=${word} did not find LSN ${lsn}: ${JSON.stringify(found.body).slice(0, 200)}`,
  );

  proc.kill("SIGTERM");
  const code = await within(proc.exited, COMMAND_TIMEOUT_MS);
  expect(code !== "timeout", `zerodb serve did not stop within ${COMMAND_TIMEOUT_MS / 1000} s of SIGTERM`);
  const rest = await err.rest("the end of stderr");
  expect(code === 0, `zerodb serve exited ${code} on SIGTERM: ${rest.join(" | ").slice(0, 300)}`);
  await stdout;
}
