/**
 * Every error status of the HTTP door (DESIGN.md 6.1, I6, I10), in-process
 * and through a real `zerodb serve`: the right code and status, the field
 * named, and nothing written (the tenant's stats are unchanged afterwards).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { HTTP_BODY_MAX_BYTES } from "../../src/limits.ts";
import { TARGETS, type Target, answer, authed } from "./_targets.ts";

describe.each(Object.keys(TARGETS))("errors (%s)", (name) => {
  let t: Target;
  let tok: string;
  let before: { last_lsn: number; turns: { count: number }; facts: { count: number }; forgets: number };
  beforeAll(async () => {
    t = await TARGETS[name]!();
    tok = t.tokens.alice;
    await t.send("/v1/turns", authed(tok, "POST", { session: "s", entries: [{ role: "note", content: "kept", idem_key: "used" }] }));
    await t.send("/v1/facts/f", authed(tok, "PUT", { value: 1, idem_key: "fact-key" }));
    before = (await answer(await t.send("/v1/stats", authed(tok)))).body;
  });
  afterAll(() => t.close());

  const raw = (path: string, init: RequestInit) => t.send(path, init).then(answer);
  const post = (path: string, body: RequestInit["body"], type: string | null = "application/json", method = "POST") =>
    raw(path, { method, headers: { authorization: `Bearer ${tok}`, ...(type === null ? {} : { "content-type": type }) }, body });
  const error = (status: number, code: string, field?: string) => ({
    status,
    body: { error: { code, message: expect.any(String), ...(field === undefined ? {} : { field }) } },
  });

  test("401 for a missing, malformed, wrong or revoked token: one answer, no detail", async () => {
    const headers: (Record<string, string> | undefined)[] = [
      undefined,
      { authorization: "" },
      { authorization: `Basic ${btoa("alice:pw")}` },
      { authorization: "Bearer" },
      { authorization: `Bearer ${tok}x` },
      { authorization: `Bearer ${`zdb_${"A".repeat(43)}`}` },
      { authorization: `Bearer ${t.tokens.revoked}` },
    ];
    const answers = await Promise.all(headers.map((h) => t.send("/v1/whoami", h ? { headers: h } : {})));
    const bodies = new Set<string>();
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="zerodb"');
      bodies.add(await res.text());
    }
    expect([...bodies]).toEqual([
      JSON.stringify({ error: { code: "unauthorized", message: "a valid token is required: send Authorization: Bearer <token>" } }),
    ]);
    // Writes and unknown paths under /v1 are refused before anything else.
    expect(await raw("/v1/turns", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).toEqual(error(401, "unauthorized"));
    expect(await raw("/v1/nothing-here", {})).toEqual(error(401, "unauthorized"));
  });

  test("400 for JSON that is not JSON, not UTF-8, or not an object", async () => {
    expect(await post("/v1/turns", '{"session": ')).toEqual(error(400, "invalid_input", "body"));
    const badUtf8 = new Uint8Array([...Buffer.from('{"session":"s","entries":[{"role":"note","content":"'), 0xff, 0xfe, ...Buffer.from('"}]}')]);
    expect(await post("/v1/turns", badUtf8)).toEqual(error(400, "invalid_input", "body"));
    expect(await post("/v1/turns", "")).toEqual(error(400, "invalid_input", "body"));
    expect(await post("/v1/turns", "[1, 2]")).toEqual(error(400, "invalid_input", "input"));
    expect(await post("/v1/facts/k", '"just a string"', "application/json", "PUT")).toEqual(error(400, "invalid_input", "body"));
  });

  test("400 naming the field: unknown fields, bad values, huge numbers", async () => {
    expect(await post("/v1/turns", JSON.stringify({ session: "s", entries: [{ role: "note", content: "x" }], extra: 1 }))).toEqual(
      error(400, "invalid_input", "extra"),
    );
    expect(await post("/v1/turns", JSON.stringify({ session: "s", entries: [{ role: "robot", content: "x" }] }))).toEqual(
      error(400, "invalid_input", "entries.0.role"),
    );
    expect(await post("/v1/turns", JSON.stringify({ session: "a//b", entries: [{ role: "note", content: "x" }] }))).toEqual(
      error(400, "invalid_input", "session"),
    );
    expect(await post("/v1/turns", JSON.stringify({ session: "s", entries: [] }))).toEqual(error(400, "invalid_input", "entries"));
    // 1e400 parses to Infinity: not a number JSON can carry, refused wherever it appears.
    expect(await post("/v1/turns", '{"session":"s","entries":[{"role":"note","content":"x","meta":{"n":1e400}}]}')).toEqual(
      error(400, "invalid_input", "entries.0.meta.n"),
    );
    expect(await post("/v1/forget", '{"selector":{"turn":1e400}}')).toEqual(error(400, "invalid_input", "selector.turn"));
    expect(await post("/v1/forget", '{"selector":{"turn":-1}}')).toEqual(error(400, "invalid_input", "selector.turn"));
    expect(await post("/v1/forget", '{"selector":{}}')).toEqual(error(400, "invalid_input", "selector"));
    expect(await post("/v1/facts/k", '{"value":1e400}', "application/json", "PUT")).toEqual(error(400, "invalid_input", "value"));
    expect(await post("/v1/facts/k", '{"value":1,"key":"other"}', "application/json", "PUT")).toEqual(error(400, "invalid_input", "key"));
    expect(await post("/v1/facts/k", '{"value":1,"colour":"red"}', "application/json", "PUT")).toEqual(error(400, "invalid_input", "colour"));
    expect(await post("/v1/facts/k", "{}", "application/json", "PUT")).toEqual(error(400, "invalid_input", "value"));
  });

  test("400 for query strings: numbers strictly, no unknown or repeated parameters, valid encoding", async () => {
    const q = (path: string) => raw(path, authed(tok));
    for (const bad of ["12abc", "-1", "1e3", "1.5", "", "0x10", " 5", "99999999999999999"]) {
      expect(await q(`/v1/turns?session=s&limit=${encodeURIComponent(bad)}`)).toEqual(error(400, "invalid_input", "limit"));
    }
    expect(await q("/v1/turns?session=s&limit=0")).toEqual(error(400, "invalid_input", "limit"));
    expect(await q("/v1/turns?session=s&limit=1001")).toEqual(error(400, "invalid_input", "limit"));
    expect(await q("/v1/turns?session=s&after=-1")).toEqual(error(400, "invalid_input", "after"));
    expect(await q("/v1/turns?session=s&limit=5&limit=6")).toEqual(error(400, "invalid_input", "limit"));
    expect(await q("/v1/turns?session=s&colour=red")).toEqual(error(400, "invalid_input", "colour"));
    expect(await q("/v1/turns")).toEqual(error(400, "invalid_input", "session"));
    expect(await q("/v1/turns?session=%FF")).toEqual(error(400, "invalid_input", "session"));
    expect(await q("/v1/turns?session=%E2%82")).toEqual(error(400, "invalid_input", "session"));
    expect(await q("/v1/search?session=s")).toEqual(error(400, "invalid_input", "q"));
    expect(await q("/v1/search?q=x&role=robot")).toEqual(error(400, "invalid_input", "role"));
    expect(await q("/v1/sessions?limit=abc")).toEqual(error(400, "invalid_input", "limit"));
    expect(await q("/v1/facts?prefix=a%2F%2Fb")).toEqual(error(400, "invalid_input", "prefix"));
    expect(await q("/v1/stats?x=1")).toEqual(error(400, "invalid_input", "x"));
    expect(await q("/v1/whoami?x=1")).toEqual(error(400, "invalid_input", "x"));
    expect(await q("/v1/facts/a%00b")).toEqual(error(400, "invalid_input", "key"));
    expect(await q("/v1/facts/a%ZZ")).toEqual(error(400, "invalid_input", "key"));
  });

  test("404 for an unknown route and a missing fact", async () => {
    expect(await raw("/v1/nothing-here", authed(tok))).toEqual(error(404, "not_found"));
    expect(await raw("/nowhere", {})).toEqual(error(404, "not_found"));
    expect(await raw("/v1/turns", authed(tok, "DELETE"))).toEqual(error(404, "not_found"));
    expect(await raw("/v1/facts/no/such/key", authed(tok))).toEqual(error(404, "not_found", "key"));
  });

  test("409 when an idempotency key is reused for a different write", async () => {
    expect(await post("/v1/turns", JSON.stringify({ session: "s", entries: [{ role: "note", content: "other", idem_key: "used" }] }))).toEqual(
      error(409, "conflict", "entries.0.idem_key"),
    );
    expect(await post("/v1/facts/f", JSON.stringify({ value: 2, idem_key: "fact-key" }), "application/json", "PUT")).toEqual(
      error(409, "conflict", "idem_key"),
    );
  });

  test("413 for a body over 8 MiB, declared or streamed, and for content over its own limit", async () => {
    const over = new Uint8Array(HTTP_BODY_MAX_BYTES + 1).fill(0x20);
    expect(await post("/v1/turns", over)).toEqual(error(413, "too_large", "body"));
    const chunks = (function* () {
      for (let i = 0; i < 9; i++) yield new Uint8Array(1 << 20).fill(0x20);
    })();
    const streamed = new ReadableStream<Uint8Array>({
      pull(ctrl) {
        const next = chunks.next();
        if (next.done) ctrl.close();
        else ctrl.enqueue(next.value);
      },
    });
    expect(await post("/v1/forget", streamed)).toEqual(error(413, "too_large", "body"));
    const content = "x".repeat(4 * 1024 * 1024 + 1);
    expect(await post("/v1/turns", JSON.stringify({ session: "s", entries: [{ role: "note", content }] }))).toEqual(
      error(413, "too_large", "entries.0.content"),
    );
  });

  test("415 for a body that is not declared as JSON", async () => {
    const body = JSON.stringify({ session: "s", entries: [{ role: "note", content: "x" }] });
    expect(await post("/v1/turns", body, null)).toEqual(error(415, "unsupported_media_type", "content-type"));
    expect(await post("/v1/turns", body, "text/plain")).toEqual(error(415, "unsupported_media_type", "content-type"));
    expect(await post("/v1/turns", body, "application/json; charset=latin1")).toEqual(error(415, "unsupported_media_type", "content-type"));
    expect(await post("/v1/forget", JSON.stringify({ selector: { session: "s" } }), "application/x-www-form-urlencoded")).toEqual(
      error(415, "unsupported_media_type", "content-type"),
    );
    // The same body with a JSON type (and an explicit UTF-8 charset) is fine.
    expect(
      (await post("/v1/turns", JSON.stringify({ session: "ok", entries: [{ role: "note", content: "x" }] }), "Application/JSON; charset=UTF-8")).status,
    ).toBe(200);
  });

  test("nothing was written by any refused request", async () => {
    const after = (await answer(await t.send("/v1/stats", authed(tok)))).body;
    // One accepted append (the 415 test's last request) is the only write since `before`.
    expect(after.turns.count).toBe(before.turns.count + 1);
    expect(after.facts).toEqual(before.facts);
    expect(after.forgets).toBe(before.forgets);
    expect((await answer(await t.send("/v1/turns?session=s", authed(tok)))).body.turns.map((x: { content: string }) => x.content)).toEqual(["kept"]);
    expect((await answer(await t.send("/v1/facts/f", authed(tok)))).body.value).toBe(1);
    expect((await answer(await t.send("/v1/facts/k", authed(tok)))).status).toBe(404);
  });
});
