/** Issue 17, item 10: POST /v1/forget matching nothing answers lsn null and writes nothing, through a real `zerodb serve`. */
import { describe, expect, test } from "bun:test";
import { runZ, tempDir } from "../helpers.ts";
import { createToken, startServer } from "./_server.ts";
import { answer, authed } from "./_targets.ts";

describe("issue 17: an empty forget over HTTP", () => {
  test("POST /v1/forget matching nothing answers {lsn: null, hidden: 0} and leaves last_lsn and the export unchanged", async () => {
    using dir = tempDir("zerodb-http-forget-");
    const home = dir.path;
    const token = await createToken(home, "alice");
    await using server = await startServer(home);
    const send = async (method: string, path: string, json?: unknown) => answer(await fetch(server.url + path, authed(token, method, json)));

    expect((await send("POST", "/v1/turns", { session: "p/a", entries: [{ role: "note", content: "kept" }] })).status).toBe(200);
    const before = (await send("GET", "/v1/stats")).body;
    const exported = await runZ(["export"], { home });
    expect(exported.code).toBe(0);

    for (const selector of [{ session: "does/not/exist" }, { fact: "nope" }, { turn: 999 }]) {
      expect(await send("POST", "/v1/forget", { selector })).toEqual({ status: 200, body: { lsn: null, hidden: 0, dry_run: false } });
    }
    const after = (await send("GET", "/v1/stats")).body;
    expect({ ...after, disk: null }).toEqual({ ...before, disk: null });
    expect(after.forgets).toBe(0);
    expect(await runZ(["export"], { home })).toEqual(exported);
    const next = await send("POST", "/v1/turns", { session: "p/a", entries: [{ role: "note", content: "next" }] });
    expect(next.body.entries[0].lsn).toBe(before.last_lsn + 1);
  });
});
