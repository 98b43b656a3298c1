/**
 * The tenant-isolation matrix (DESIGN.md I5, issue 9): tenant alice writes
 * turns, facts, links, objects and a forget through a real `zerodb serve`.
 * Then bob, and carol who has nothing of alice's, make the same calls naming
 * alice's sessions, keys, LSNs and digests, over every HTTP route and every
 * MCP tool (`zerodb mcp --url`, remote mode). Their answers, normalized for
 * what is rightly their own (name, own LSNs and times), must be identical:
 * nothing tells bob that alice's records exist. Bob's forgets, even of
 * alice's exact names, LSNs and digest, leave alice's data whole.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createToken, startServer, type ServerProcess } from "../http/_server.ts";
import { type McpProcess, startMcp } from "../mcp/_client.ts";
import { tempDir } from "../helpers.ts";
import { normalizeJson, normalizeText } from "./_normalize.ts";

const WORD = "falconheavy";
const OBJECT_BYTES = `alice's private object ${WORD}`;
const TENANTS = ["alice", "bob", "carol"];

/** What alice wrote, as the probes name it. */
interface AliceData {
  turnLsn: number;
  linkLsn: number;
  digest: string;
  stats: unknown;
}

/** One HTTP request of the matrix. */
interface Probe {
  method: string;
  path: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

/** Every route of DESIGN.md 6.1, naming alice's records; {LSN}, {LINK}, {DIGEST} are filled in. */
const PROBES: Probe[] = [
  { method: "GET", path: "/v1/whoami" },
  { method: "GET", path: "/v1/turns?session=secret%2Fplans" },
  { method: "GET", path: "/v1/turns?session=secret/plans&after={LSN-1}&limit=1" },
  { method: "GET", path: "/v1/sessions" },
  { method: "GET", path: "/v1/sessions?prefix=secret%2F" },
  { method: "GET", path: `/v1/search?q=${WORD}` },
  { method: "GET", path: `/v1/search?q=${WORD}&session=secret/plans&role=user` },
  { method: "GET", path: `/v1/search?q=${WORD}&prefix=secret/` },
  { method: "GET", path: "/v1/facts/secret/code" },
  { method: "GET", path: "/v1/facts" },
  { method: "GET", path: "/v1/facts?prefix=secret" },
  { method: "GET", path: "/v1/stats" },
  { method: "GET", path: "/v1/objects" },
  { method: "GET", path: "/v1/objects/{DIGEST}" },
  { method: "HEAD", path: "/v1/objects/{DIGEST}" },
  { method: "GET", path: "/v1/objects/{DIGEST}", headers: { range: "bytes=0-3" } },
  ...["session", "session_prefix", "turn", "fact", "fact_prefix", "object", "link", "before"].map((kind) => ({
    method: "POST",
    path: "/v1/forget",
    json: { selector: selectorOf(kind), dry_run: true },
  })),
  // Writes with alice's idempotency keys: new to bob, never a conflict or a duplicate of hers (I3 is per tenant).
  { method: "POST", path: "/v1/turns", json: { session: "secret/plans", entries: [{ role: "user", content: "other words", idem_key: "alice-turn" }] } },
  { method: "PUT", path: "/v1/facts/secret/code", json: { value: "other", idem_key: "alice-fact" } },
  { method: "POST", path: "/v1/links", json: { url: "https://example.org/other", idem_key: "alice-link" } },
  { method: "PUT", path: "/v1/objects", body: OBJECT_BYTES, headers: { "content-type": "text/plain", "idempotency-key": "alice-object" } },
  // Real forgets of alice's exact names, LSNs and digest: each hides only the caller's own records.
  ...["session", "session_prefix", "turn", "fact", "fact_prefix", "object", "link", "before"].map((kind) => ({
    method: "POST",
    path: "/v1/forget",
    json: { selector: selectorOf(kind) },
  })),
  // After all that, the listings again.
  { method: "GET", path: "/v1/sessions" },
  { method: "GET", path: `/v1/search?q=${WORD}` },
  { method: "GET", path: "/v1/objects/{DIGEST}" },
  { method: "GET", path: "/v1/stats" },
];

function selectorOf(kind: string): Record<string, unknown> {
  const values: Record<string, unknown> = {
    session: "secret/plans",
    session_prefix: "secret/",
    turn: "{LSN}",
    fact: "secret/code",
    fact_prefix: "secret",
    object: "{DIGEST}",
    link: "{LINK}",
    before: "2999-01-01T00:00:00Z",
  };
  return { [kind]: values[kind] };
}

describe("tenant isolation matrix (I5)", () => {
  let box: { path: string; [Symbol.dispose](): void };
  let server: ServerProcess;
  const tokens: Record<string, string> = {};
  let alice: AliceData;

  const fill = (s: string) =>
    alice === undefined
      ? s
      : s
          .replaceAll("{LSN-1}", String(alice.turnLsn - 1))
          .replaceAll('"{LSN}"', String(alice.turnLsn))
          .replaceAll('"{LINK}"', String(alice.linkLsn))
          .replaceAll("{DIGEST}", alice.digest);

  /** Sends a probe as a tenant; returns what the caller can see of the answer. */
  async function send(tenant: string, p: Probe): Promise<{ status: number; type: string | null; body: string; headers: Record<string, string | null> }> {
    const json = p.json === undefined ? undefined : fill(JSON.stringify(p.json));
    const res = await fetch(server.url + fill(p.path), {
      method: p.method,
      headers: { authorization: `Bearer ${tokens[tenant]}`, ...(json !== undefined ? { "content-type": "application/json" } : {}), ...p.headers },
      body: json ?? p.body,
    });
    const type = res.headers.get("content-type");
    // A JSON body's length follows the caller's own name and LSNs; the body itself is compared.
    const names = ["content-range", "x-zerodb-name", "etag", ...(type?.startsWith("application/json") ? [] : ["content-length"])];
    const headers = Object.fromEntries(names.map((h) => [h, res.headers.get(h)]));
    return { status: res.status, type, body: await res.text(), headers };
  }

  /** An answer with what is rightly the caller's own replaced. */
  const seen = (r: Awaited<ReturnType<typeof send>>) => {
    let body: unknown = r.body;
    try {
      body = normalizeJson(JSON.parse(r.body), TENANTS);
    } catch {
      body = normalizeText(r.body, TENANTS);
    }
    return { ...r, body };
  };

  beforeAll(async () => {
    box = tempDir("zerodb-isolation-");
    for (const t of TENANTS) tokens[t] = await createToken(box.path, t);
    server = await startServer(box.path);
    const a = (p: Probe) => send("alice", p).then((r) => JSON.parse(r.body));
    const turn = await a({
      method: "POST",
      path: "/v1/turns",
      json: { session: "secret/plans", entries: [{ role: "user", content: `launch the ${WORD} project`, idem_key: "alice-turn" }] },
    });
    await a({ method: "POST", path: "/v1/turns", json: { session: "secret/other", entries: [{ role: "note", content: `${WORD} budget` }] } });
    await a({ method: "POST", path: "/v1/turns", json: { session: "secret/gone", entries: [{ role: "note", content: `${WORD} forgotten` }] } });
    await a({ method: "POST", path: "/v1/forget", json: { selector: { session: "secret/gone" } } });
    await a({ method: "PUT", path: "/v1/facts/secret/code", json: { value: "1234", idem_key: "alice-fact" } });
    const link = await a({ method: "POST", path: "/v1/links", json: { url: "https://example.org/plans", title: `${WORD} design`, idem_key: "alice-link" } });
    const object = await a({
      method: "PUT",
      path: "/v1/objects",
      body: OBJECT_BYTES,
      headers: { "content-type": "text/plain", "x-zerodb-name": "plans.txt", "idempotency-key": "alice-object" },
    });
    alice = { turnLsn: turn.entries[0].lsn, linkLsn: link.lsn, digest: object.object, stats: undefined };
    alice.stats = await a({ method: "GET", path: "/v1/stats" });
    // Alice really sees what the probes name.
    expect((await a({ method: "GET", path: `/v1/search?q=${WORD}` })).hits).toHaveLength(3);
  });

  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
    box?.[Symbol.dispose]();
  });

  test("HTTP: every route answers bob exactly as it answers carol, who has nothing (I5)", async () => {
    for (const p of PROBES) {
      const asBob = seen(await send("bob", p));
      const asCarol = seen(await send("carol", p));
      const what = `${p.method} ${fill(p.path)} ${p.json ? fill(JSON.stringify(p.json)) : ""}`;
      expect(asBob, `I5: bob and carol get the same answer to ${what}`).toEqual(asCarol);
      expect(asBob.status, `I10: never a 5xx (${what})`).toBeLessThan(500);
      for (const leak of [WORD, "1234", "plans.txt", "example.org/plans"].filter((l) => !what.includes(l)))
        expect(JSON.stringify(asBob).includes(leak), `I5: ${leak} is alice's (${what})`).toBe(false);
    }
  });

  test("HTTP: alice's digest answers bob exactly like a digest nobody stored (I5)", async () => {
    const never = `sha256:${"0".repeat(64)}`;
    for (const method of ["GET", "HEAD"]) {
      const foreign = seen(await send("bob", { method, path: `/v1/objects/${alice.digest}` }));
      const missing = seen(await send("bob", { method, path: `/v1/objects/${never}` }));
      expect(
        { ...foreign, body: String(foreign.body === undefined ? "" : JSON.stringify(foreign.body)).replaceAll(alice.digest, "<d>") },
        `I5: ${method} of a foreign digest is not_found like a missing one`,
      ).toEqual({
        ...missing,
        body: String(missing.body === undefined ? "" : JSON.stringify(missing.body)).replaceAll(never, "<d>"),
      });
    }
  });

  test("MCP (remote mode): every tool answers bob exactly as it answers carol (I5)", async () => {
    const work = join(box.path, "work");
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, "same.txt"), OBJECT_BYTES);
    const clients: Record<string, McpProcess> = {};
    try {
      for (const t of ["bob", "carol"]) {
        clients[t] = await startMcp({
          home: box.path,
          cwd: work,
          args: ["--url", server.url],
          env: { ZERODB_TOKEN: tokens[t]!, ZERODB_HOME: join(box.path, `client-${t}`) },
        });
      }
      const calls: [string, Record<string, unknown>][] = [
        ["recall", { session: "secret/plans" }],
        ["recall", { session: "secret/plans", after: alice.turnLsn - 1, limit: 1 }],
        ["search", { query: WORD }],
        ["search", { query: WORD, prefix: "secret/", role: "user" }],
        ["sessions", {}],
        ["sessions", { prefix: "secret/" }],
        ["fact_get", { key: "secret/code" }],
        ["fact_list", { prefix: "secret" }],
        ["object_get", { object: alice.digest }],
        ["object_get", { object: alice.digest, path: "copy.bin" }],
        ["stats", {}],
        ...["session", "session_prefix", "turn", "fact", "fact_prefix", "object", "link", "before"].map((k): [string, Record<string, unknown>] => [
          "forget",
          { selector: JSON.parse(fill(JSON.stringify(selectorOf(k)))), dry_run: true },
        ]),
        ["remember", { content: "bob's words", session: "secret/plans", idem_key: "alice-turn" }],
        ["fact_set", { key: "secret/code", value: 1, idem_key: "alice-fact" }],
        ["link_add", { url: "https://example.org/other", idem_key: "alice-link" }],
        ["object_put", { path: "same.txt", idem_key: "alice-object" }],
        ...["session", "session_prefix", "turn", "fact", "fact_prefix", "object", "link", "before"].map((k): [string, Record<string, unknown>] => [
          "forget",
          { selector: JSON.parse(fill(JSON.stringify(selectorOf(k)))) },
        ]),
        ["search", { query: WORD }],
        ["stats", {}],
      ];
      for (const [tool, args] of calls) {
        const answer = async (t: string) => {
          const r = (await clients[t]!.client.callTool({ name: tool, arguments: args })) as CallToolResult;
          return normalizeJson({ isError: r.isError ?? false, content: r.content, structured: r.structuredContent ?? null }, TENANTS);
        };
        const [asBob, asCarol] = [await answer("bob"), await answer("carol")];
        const what = `${tool} ${JSON.stringify(args)}`;
        expect(asBob, `I5: bob and carol get the same answer to ${what}`).toEqual(asCarol);
        // The query is echoed back ("No hits for ..."): only what the call did not name is a leak.
        for (const leak of [WORD, "1234", "plans.txt"].filter((l) => !what.includes(l)))
          expect(JSON.stringify(asBob).includes(leak), `I5: ${leak} is alice's (${what})`).toBe(false);
      }
    } finally {
      for (const c of Object.values(clients)) await c[Symbol.asyncDispose]();
    }
  }, 60_000);

  test("after bob's and carol's forgets of alice's exact names, LSNs and digest, alice's data is whole (I5, I8)", async () => {
    const a = (p: Probe) => send("alice", p);
    const turns = JSON.parse((await a({ method: "GET", path: "/v1/turns?session=secret/plans" })).body);
    expect(
      turns.turns.map((t: { content: string }) => t.content),
      "I5: alice's turn survives bob's forgets",
    ).toEqual([`launch the ${WORD} project`]);
    expect(JSON.parse((await a({ method: "GET", path: "/v1/facts/secret/code" })).body).value, "I5: alice's fact survives").toBe("1234");
    const object = await a({ method: "GET", path: `/v1/objects/${alice.digest}` });
    expect({ status: object.status, body: object.body }, "I5: alice's object bytes survive bob forgetting his ref to the same blob").toEqual({
      status: 200,
      body: OBJECT_BYTES,
    });
    expect(JSON.parse((await a({ method: "GET", path: `/v1/search?q=${WORD}` })).body).hits, "I5: alice's turns and link still match").toHaveLength(3);
    expect(normalizeJson(JSON.parse((await a({ method: "GET", path: "/v1/stats" })).body), TENANTS), "I5: alice's figures are unchanged").toEqual(
      normalizeJson(alice.stats, TENANTS),
    );
  });
});
