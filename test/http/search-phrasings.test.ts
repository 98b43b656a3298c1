/** Issue 28: `GET /v1/search` with `q` repeated, one phrasing each (DESIGN.md 11, "Several phrasings"), through a real `zerodb serve`. */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../helpers.ts";
import { createToken, startServer } from "./_server.ts";
import { answer, authed } from "./_targets.ts";

describe("issue 28: several phrasings over HTTP", () => {
  test("the first q is the query, each further q another phrasing; other parameters still may not repeat", async () => {
    using dir = tempDir("zerodb-http-phrasings-");
    const token = await createToken(dir.path, "alice");
    await using server = await startServer(dir.path);
    const send = async (method: string, path: string, json?: unknown) => answer(await fetch(server.url + path, authed(token, method, json)));
    const append = async (session: string, content: string) =>
      (await send("POST", "/v1/turns", { session, entries: [{ role: "note", content }] })).body.entries[0].lsn as number;
    const vault = await append("p/a", "the deploy key lives in vault");
    const kestrel = await append("p/b", "a kestrel hovered over the field");
    const found = async (query: string) => {
      const r = await send("GET", `/v1/search?${query}`);
      expect(r.status).toBe(200);
      return (r.body.hits as { lsn: number; found_by?: number[] }[]).map((h) => [h.lsn, h.found_by]);
    };

    expect(await found("q=zanzibar")).toEqual([]);
    expect(await found("q=zanzibar&q=vault")).toEqual([[vault, [1]]]);
    // In the order written, wherever the other parameters stand; percent-encoded and '+' as in any query string.
    // Each is its phrasing's first hit: the tie goes to the earlier phrasing.
    expect(await found("q=zanzibar&limit=10&q=kestrel+hovered&q=deploy%20key")).toEqual([
      [kestrel, [1]],
      [vault, [2]],
    ]);
    expect(await found("q=zanzibar&q=vault&q=kestrel&session=p/b")).toEqual([[kestrel, [2]]]);
    // One q alone: the search as it always was, no found_by.
    expect(await found("q=vault")).toEqual([[vault, undefined]]);

    const refused = async (query: string) => {
      const r = await send("GET", `/v1/search?${query}`);
      return { status: r.status, code: r.body.error.code, field: r.body.error.field };
    };
    expect(await refused("q=vault&q=key&q=%21%21")).toEqual({ status: 400, code: "invalid_input", field: "queries.1" });
    expect(await refused("q=vault&q=")).toEqual({ status: 400, code: "invalid_input", field: "queries.0" });
    expect(await refused(`q=vault${"&q=key".repeat(9)}`)).toEqual({ status: 413, code: "too_large", field: "queries" });
    expect(await refused("q=vault&session=p/a&session=p/b")).toEqual({ status: 400, code: "invalid_input", field: "session" });
    expect(await refused("q=vault&queries=key")).toEqual({ status: 400, code: "invalid_input", field: "queries" });
  });
});
