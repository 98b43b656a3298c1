/**
 * A turn whose JSON passes the 8 MiB body limit (issue 30): 4 MiB of quotes,
 * backslashes and control characters escape to far more. Sync pushes it
 * alone with its content unescaped (`POST /v1/sync/turn`), so it arrives
 * byte for byte on every replica, between the turns around it; the route
 * refuses a body that is not one turn with a typed error, writing nothing.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { CONTENT_MAX_BYTES } from "../../src/limits.ts";
import { SYNC_TURN_TYPE } from "../../src/schema/sync.ts";
import { tempDir } from "../helpers.ts";
import { createToken, startServer } from "../http/_server.ts";
import { escapeHeavy, machine, teamServer } from "./_machines.ts";

describe("a turn too large for JSON once escaped", () => {
  test("syncs byte for byte, in its place between the turns around it", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const a = machine(dir.path, "a");
    const b = machine(dir.path, "b");
    const big = escapeHeavy(CONTENT_MAX_BYTES, "wombatlarge ");
    expect(JSON.stringify(big).length).toBeGreaterThan(3 * CONTENT_MAX_BYTES);
    expect((await a.run(["append", "--session", "s", "before the big one"])).code).toBe(0);
    expect((await a.run(["append", "--session", "s", "--no-redact"], { stdin: big })).code).toBe(0);
    expect((await a.run(["append", "--session", "s", "after the big one"])).code).toBe(0);
    expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 3 });
    expect(await b.sync(server.url, tok)).toMatchObject({ pulled: 3 });
    const onB = await b.turns();
    expect(onB.s).toHaveLength(3);
    expect(onB.s![0]).toBe("before the big one");
    expect(onB.s![1] === big).toBe(true);
    expect(onB.s![2]).toBe("after the big one");
    expect((await b.json<{ hits: unknown[] }>(["search", "wombatlarge"])).hits).toHaveLength(1);
    // Nothing moves twice.
    expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
    expect(await b.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
  }, 60_000);

  test("POST /v1/sync/turn refuses what is not one turn, naming the field, and writes nothing", async () => {
    using dir = tempDir();
    const srvHome = join(dir.path, "server");
    mkdirSync(srvHome, { recursive: true });
    const token = await createToken(srvHome, "team");
    await using server = await startServer(srvHome);
    const post = async (body: Uint8Array | string, type = SYNC_TURN_TYPE) => {
      const res = await fetch(`${server.url}/v1/sync/turn`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": type }, body });
      return { status: res.status, error: ((await res.json()) as { error?: { code: string; field?: string } }).error };
    };
    const head = (h: Record<string, unknown>) => `${JSON.stringify(h)}\n`;
    const cases: [Uint8Array | string, string | undefined, number, string, string][] = [
      [`${head({ session: "s", role: "note" })}fine`, "application/json", 415, "unsupported_media_type", "content-type"],
      ["no newline, so no header line", undefined, 400, "invalid_input", "body"],
      ["[1, 2]\ncontent", undefined, 400, "invalid_input", "body"],
      [Buffer.concat([Buffer.from(head({ session: "s", role: "note" })), Buffer.from([0xff, 0xfe])]), undefined, 400, "invalid_input", "content"],
      [`${head({ role: "note" })}no session`, undefined, 400, "invalid_input", "session"],
      [`${head({ session: "s", role: "wizard" })}bad role`, undefined, 400, "invalid_input", "entries.0.role"],
      [`${head({ session: "s", role: "note" })}${"x".repeat(CONTENT_MAX_BYTES + 1)}`, undefined, 413, "too_large", "entries.0.content"],
      [`${head({ session: "s", role: "note" })}${"x".repeat(CONTENT_MAX_BYTES + 70_000)}`, undefined, 413, "too_large", "body"],
    ];
    for (const [body, type, status, code, field] of cases) {
      expect({ field, got: await post(body, type) }).toEqual({ field, got: { status, error: expect.objectContaining({ code, field }) } });
    }
    // Nothing of it was written; a good one is.
    const r = await fetch(`${server.url}/v1/turns?session=s`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status === 404 || ((await r.json()) as { turns: unknown[] }).turns.length === 0).toBe(true);
    expect(await post(`${head({ session: "s", role: "note", meta: { k: 1 }, idem_key: "one" })}a good one`)).toMatchObject({ status: 200 });
    const read = (await (await fetch(`${server.url}/v1/turns?session=s`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      turns: { content: string; meta: unknown }[];
    };
    expect(read.turns.map((t) => [t.content, t.meta])).toEqual([["a good one", { k: 1 }]]);
  }, 60_000);
});
