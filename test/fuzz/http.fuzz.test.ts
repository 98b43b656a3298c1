/**
 * Fuzz the HTTP door (issue 9): generated bodies, query strings, paths and
 * headers for every route of DESIGN.md 6.1 against a real `zerodb serve`.
 * Never a 500 (I10); every 4xx is `{"error": {code, message, field?}}` with
 * the field named (I6); a refused request writes nothing (I6: the tenant's
 * last_lsn is unchanged).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { join } from "node:path";
import { createToken, startServer, type ServerProcess } from "../http/_server.ts";
import { tempDir } from "../helpers.ts";
import { INTERNALS, expectErrorDoc, integrity, lastLsn, reportCases } from "./_check.ts";
import { anyValue, deepValue, fuzzRuns, hostileValue, inputs, jsonText, nastyString, notJsonBytes, queryComponent, queryString } from "./arbitraries.ts";

const RUNS = fuzzRuns(1 / 3);

/** One generated request. */
interface Req {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** `rec` with `value` at a dotted path ("entries.0.meta"), creating what is missing on the way. */
function setPath(rec: unknown, path: string, value: unknown): Record<string, unknown> {
  const root: Record<string, unknown> = { ...(typeof rec === "object" && rec !== null ? rec : {}) };
  const keys = path.split(".");
  let at: Record<string, unknown> = root;
  for (const k of keys.slice(0, -1)) {
    const next = at[k];
    at[k] = Array.isArray(next) ? [...next] : typeof next === "object" && next !== null ? { ...next } : /^\d+$/.test(keys[keys.indexOf(k) + 1]!) ? [] : {};
    at = at[k] as Record<string, unknown>;
  }
  at[keys.at(-1)!] = value;
  return root;
}

/** A JSON route's body: usually the operation's near-valid input, sometimes a hostile value at a field's path, or no JSON at all. */
function jsonBody(input: fc.Arbitrary<unknown>, fields: string[]): fc.Arbitrary<string | Uint8Array> {
  const injected = fc.tuple(input, fc.constantFrom(...fields), fc.oneof(anyValue, deepValue)).map(([rec, field, v]) => jsonText(setPath(rec, field, v)));
  return fc.oneof(
    { weight: 6, arbitrary: input.map(jsonText) },
    { weight: 2, arbitrary: injected },
    { weight: 1, arbitrary: hostileValue.map(jsonText) },
    { weight: 1, arbitrary: notJsonBytes },
  );
}

/** Content types a JSON route may be sent. */
const jsonType = fc.oneof(
  { weight: 8, arbitrary: fc.constant("application/json") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "text/plain",
      "application/json; charset=latin1",
      "application/json; charset=utf-8",
      "",
      "application/x-www-form-urlencoded",
      "APPLICATION/JSON",
    ),
  },
);

/** A header value fetch accepts (visible ASCII), built from a nasty string. */
const headerValue = fc.oneof(
  nastyString.map((s) => encodeURIComponent(s.toWellFormed()).slice(0, 300)),
  fc.constantFrom("%", "%ff", "%E0%80", "", " ", "a".repeat(300)),
);

/** A path segment under /v1/facts/: encoded nasty strings, raw broken escapes, several segments. */
const factPath = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("f", "p/a", "seed", "%C3%A9/%C3%BC") },
  { weight: 3, arbitrary: nastyString.map((s) => encodeURIComponent(s.toWellFormed())) },
  { weight: 2, arbitrary: fc.array(queryComponent, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/")) },
);

const digest = fc.oneof(
  fc.constant("SEED"),
  fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `sha256:${h}`),
  fc.constantFrom(
    "sha256:",
    "sha256:ZZ",
    `SHA256:${"0".repeat(64)}`,
    `sha256:${"0".repeat(63)}`,
    `sha256%3A${"a".repeat(64)}`,
    "..",
    "%2e%2e",
    `sha256:${"A".repeat(64)}`,
  ),
  queryComponent,
);

const range = fc.option(
  fc.oneof(
    fc.constantFrom("bytes=0-0", "bytes=-1", "bytes=5-2", "bytes=0-", "bytes=-0", "bytes=999999-", "bytes=0-1,2-3", "items=0-1", "bytes=abc"),
    headerValue,
  ),
  { nil: undefined },
);

/** Every route of DESIGN.md 6.1 (and some that are not routes), as request generators. */
const ROUTES: Record<string, fc.Arbitrary<Req>> = {
  "GET /v1/whoami": queryString([]).map((q) => ({ method: "GET", path: `/v1/whoami${q}` })),
  "POST /v1/turns": fc
    .tuple(jsonBody(inputs.append, ["session", "entries", "entries.0.meta", "entries.0.content", "entries.1"]), jsonType)
    .map(([body, type]) => ({ method: "POST", path: "/v1/turns", headers: { "content-type": type }, body })),
  "GET /v1/turns": queryString(["session", "after", "limit"]).map((q) => ({ method: "GET", path: `/v1/turns${q}` })),
  "GET /v1/sessions": queryString(["prefix", "after", "limit"]).map((q) => ({ method: "GET", path: `/v1/sessions${q}` })),
  "GET /v1/search": queryString(["q", "session", "prefix", "role", "limit"]).map((q) => ({ method: "GET", path: `/v1/search${q}` })),
  "PUT /v1/facts/<key>": fc
    .tuple(
      factPath,
      jsonBody(
        inputs.factSet.map(({ key: _k, ...rest }) => rest),
        ["value", "idem_key", "key"],
      ),
      jsonType,
      queryString([]),
    )
    .map(([key, body, type, q]) => ({ method: "PUT", path: `/v1/facts/${key}${q}`, headers: { "content-type": type }, body })),
  "GET /v1/facts/<key>": fc.tuple(factPath, queryString([])).map(([key, q]) => ({ method: "GET", path: `/v1/facts/${key}${q}` })),
  "GET /v1/facts": queryString(["prefix", "after", "limit"]).map((q) => ({ method: "GET", path: `/v1/facts${q}` })),
  "GET /v1/fact-history/<key>": fc
    .tuple(factPath, queryString(["before", "limit"]))
    .map(([key, q]) => ({ method: "GET", path: `/v1/fact-history/${key}${q}` })),
  "GET /v1/links": queryString(["prefix", "before", "limit"]).map((q) => ({ method: "GET", path: `/v1/links${q}` })),
  "GET /v1/activity": queryString(["days"]).map((q) => ({ method: "GET", path: `/v1/activity${q}` })),
  "POST /v1/forget": fc
    .tuple(jsonBody(inputs.forget, ["selector", "selector.session", "dry_run"]), jsonType)
    .map(([body, type]) => ({ method: "POST", path: "/v1/forget", headers: { "content-type": type }, body })),
  "GET /v1/stats": queryString([]).map((q) => ({ method: "GET", path: `/v1/stats${q}` })),
  "POST /v1/links": fc
    .tuple(
      jsonBody(
        fc.record(
          {
            url: fc.oneof(fc.webUrl(), nastyString, fc.constantFrom("javascript:alert(1)", "file:///etc/passwd", "http://", "ftp://x.y/")),
            title: nastyString,
            note: nastyString,
            idem_key: nastyString,
          },
          { requiredKeys: [] },
        ),
        ["url", "title", "note"],
      ),
      jsonType,
    )
    .map(([body, type]) => ({ method: "POST", path: "/v1/links", headers: { "content-type": type }, body })),
  "PUT /v1/objects": fc
    .record(
      {
        type: fc.oneof(fc.constantFrom("text/plain", "image/png", "application/octet-stream"), headerValue),
        name: headerValue,
        idem: headerValue,
        body: fc.uint8Array({ maxLength: 256 }),
        q: queryString(["after", "limit"]),
      },
      { requiredKeys: ["body", "q"] },
    )
    .map((r) => ({
      method: "PUT",
      path: `/v1/objects${r.q}`,
      headers: {
        ...(r.type !== undefined ? { "content-type": r.type } : {}),
        ...(r.name !== undefined ? { "x-zerodb-name": r.name } : {}),
        ...(r.idem !== undefined ? { "idempotency-key": r.idem } : {}),
      },
      body: r.body,
    })),
  "GET /v1/objects": queryString(["after", "limit"]).map((q) => ({ method: "GET", path: `/v1/objects${q}` })),
  "GET|HEAD /v1/objects/<digest>": fc
    .tuple(fc.constantFrom("GET", "HEAD"), digest, range, queryString([]))
    .map(([method, d, r, q]): Req => ({ method, path: `/v1/objects/${d}${q}`, headers: r === undefined ? {} : { range: r } })),
  "other methods and paths": fc
    .tuple(
      fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"),
      fc.constantFrom("/v1/turns", "/v1/facts", "/v1/facts/", "/v1/objects/", "/v1/", "/v1", "/", "/healthz", "/v2/turns", "/v1/forget/x"),
      queryString(["q"]),
    )
    .map(([method, path, q]) => ({ method, path: `${path}${q}` })),
};

describe("HTTP door fuzz (I6, I10)", () => {
  let dir: { path: string; [Symbol.dispose](): void };
  let server: ServerProcess;
  let token: string;
  let seedDigest: string;
  let cases = 0;
  const dataDir = () => join(dir.path, "zerodb", "data");

  beforeAll(async () => {
    dir = tempDir("zerodb-fuzz-http-");
    token = await createToken(dir.path, "fuzz");
    server = await startServer(dir.path);
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, "content-type": "application/json" };
    await fetch(`${server.url}/v1/turns`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ session: "s", entries: [{ role: "note", content: "seed alpha", idem_key: "k" }] }),
    });
    await fetch(`${server.url}/v1/facts/seed`, { method: "PUT", headers: json, body: JSON.stringify({ value: 1 }) });
    const put = await fetch(`${server.url}/v1/objects`, { method: "PUT", headers: { ...auth, "content-type": "text/plain" }, body: "seed object" });
    seedDigest = ((await put.json()) as { object: string }).object;
  });

  afterAll(async () => {
    await server[Symbol.asyncDispose]();
    reportCases("http", cases);
    dir[Symbol.dispose]();
  });

  /** Sends a request; checks the answer; returns whether it was refused. */
  async function check(req: Req, auth: "token" | "none" | "wrong"): Promise<void> {
    const path = req.path.replace("SEED", seedDigest);
    const context = `${req.method} ${path.slice(0, 200)} (${auth})`;
    const before = lastLsn(dataDir());
    const headers: Record<string, string> = { ...req.headers };
    if (auth === "token") headers.authorization = `Bearer ${token}`;
    if (auth === "wrong") headers.authorization = `Bearer ${token.slice(0, -1)}x`;
    const res = await fetch(server.url + path, { method: req.method, headers, body: req.body });
    cases++;
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(res.status, `I10: never a 5xx (${context})`).toBeLessThan(500);
    if (res.status >= 400) {
      if (req.method !== "HEAD") {
        const text = new TextDecoder().decode(bytes);
        let doc: unknown;
        try {
          doc = JSON.parse(text);
        } catch {
          throw new Error(`I6: a ${res.status} with a body that is not JSON (${context}): ${text.slice(0, 200)}`);
        }
        const err = expectErrorDoc(doc, context, { status: res.status, forbidden: [dir.path] });
        if (auth !== "token" && path.startsWith("/v1/")) expect(err.code, `I5: no detail under /v1 without a valid token (${context})`).toBe("unauthorized");
      }
      expect(lastLsn(dataDir()), `I6: nothing written by a refused request (${context})`).toBe(before);
    } else if (auth !== "token") {
      // GET / is the web viewer's login page (DESIGN.md 13), which holds no tenant's data (test/http/viewer).
      const loginPage = (req.method === "GET" || req.method === "HEAD") && /^\/(\?|$)/.test(path);
      expect(path.startsWith("/healthz") || loginPage, `I5: only /healthz and the viewer's login page answer without a token (${context})`).toBe(true);
    }
  }

  for (const [route, arb] of Object.entries(ROUTES)) {
    test(`${route}: ${RUNS} generated requests, never a 500, every refusal named and written nowhere (I6, I10)`, async () => {
      const auth = fc.oneof(
        { weight: 18, arbitrary: fc.constant("token" as const) },
        { weight: 1, arbitrary: fc.constantFrom("none" as const, "wrong" as const) },
      );
      await fc.assert(
        fc.asyncProperty(arb, auth, (req, a) => check(req, a)),
        { numRuns: RUNS },
      );
    }, 120_000);
  }

  test("the server kept serving and logged no internal error, stack or SQL (I10)", async () => {
    const res = await fetch(`${server.url}/v1/stats`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const log = server.stderr();
    expect(log, "I10: no internal error in the server's log").not.toMatch(/zerodb: internal/);
    expect(log, "I10: no stack or SQL in the server's log").not.toMatch(INTERNALS);
    expect(integrity(dataDir()), "I2: the store is intact after the fuzz").toBe("ok");
  });
});
