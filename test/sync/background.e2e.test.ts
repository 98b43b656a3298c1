/**
 * Background sync after CLI and MCP writes (issue 30, DESIGN.md 16): with
 * `sync` configured, `zerodb append` and the MCP write tools stay local and
 * start a detached `zerodb sync` (at most once a minute per store); what they
 * wrote reaches the server without an explicit `zerodb sync`, and a server
 * that is down fails nothing.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OWED_FILE, STAMP_FILE } from "../../src/sync/background.ts";
import { claudeLayout, writeTranscript } from "../capture/_fixtures.ts";
import { tempDir } from "../helpers.ts";
import { startMcp } from "../mcp/_client.ts";
import { machine, teamServer, tokenFile, type Machine } from "./_machines.ts";

/** Configures `m` to sync with `url`, its store created first. */
async function configure(m: Machine, url: string, tok: string): Promise<void> {
  expect((await m.run(["sessions"])).code).toBe(0);
  writeFileSync(join(m.home, "zerodb", "config.json"), JSON.stringify({ sync: { url, token_file: tok } }), { mode: 0o600 });
}

/** The contents of session `s` on the server, read by a machine of its own through --url, polled (bounded) until `want` holds. */
async function serverTurns(reader: Machine, url: string, tok: string, want: (contents: string[]) => boolean): Promise<string[]> {
  let contents: string[] = [];
  for (let i = 0; i < 150; i++) {
    const r = await reader.run(["read", "--session", "s", "--json", "--url", url, "--token-file", tok]);
    contents = r.code === 0 ? (JSON.parse(r.stdout) as { turns: { content: string }[] }).turns.map((t) => t.content).sort() : [];
    if (want(contents)) break;
    await Bun.sleep(200);
  }
  return contents;
}

/** Makes a stamp two minutes old: the interval since the last background sync is over. */
function age(stamp: string): void {
  const old = (Date.now() - 120_000) / 1000;
  utimesSync(stamp, old, old);
}

/** A fact's value on the server, read through --url, polled (bounded) until it is there. */
async function serverFact(reader: Machine, url: string, tok: string, key: string): Promise<unknown> {
  for (let i = 0; i < 150; i++) {
    const r = await reader.run(["fact", "get", key, "--json", "--url", url, "--token-file", tok]);
    if (r.code === 0) return JSON.parse(r.stdout).value;
    await Bun.sleep(200);
  }
  return undefined;
}

/** Waits (bounded) until the machine's background sync finished: it has synced and nothing of its own waits. */
async function settled(m: Machine): Promise<void> {
  let sync: { waiting: number; last_sync?: string } | undefined;
  for (let i = 0; i < 150 && !(sync?.last_sync && sync.waiting === 0); i++) {
    if (i > 0) await Bun.sleep(200);
    sync = (await m.json<{ sync?: typeof sync }>(["capture", "status"])).sync;
  }
  expect(sync).toMatchObject({ waiting: 0, last_sync: expect.any(String) });
}

describe("background sync after writes", () => {
  test("`zerodb append` with the server down succeeds, starts a sync, and writes only locally", async () => {
    using dir = tempDir();
    const srvHome = join(dir.path, "server");
    const tok = await tokenFile(srvHome, "team", join(dir.path, "team.token"));
    const a = machine(dir.path, "a");
    // Port 9 on loopback: nothing listens, the background sync is refused at once.
    await configure(a, "http://127.0.0.1:9", tok);
    // A write that stores nothing (a forget matching nothing) starts none.
    expect((await a.run(["forget", "--session", "nothing-here"])).code).toBe(0);
    expect(existsSync(join(a.home, "zerodb", "data", STAMP_FILE))).toBe(false);
    const r = await a.run(["append", "--session", "s", "marmoset offline note"]);
    expect({ code: r.code, stdout: r.stdout.trim(), stderr: r.stderr }).toEqual({ code: 0, stdout: "appended: lsn 1", stderr: "" });
    expect(existsSync(join(a.home, "zerodb", "data", STAMP_FILE))).toBe(true);
    expect((await a.json<{ hits: unknown[] }>(["search", "marmoset"])).hits).toHaveLength(1);
    // MCP remember alike: it answers, and its sync (owed within the minute) starts at the session's end and fails alone.
    {
      await using mcp = await startMcp({ home: a.home });
      const r = await mcp.call("remember", { content: "marmoset offline via mcp", session: "s" });
      expect(r.isError).toBeFalsy();
      expect(mcp.stderr()).toBe("");
    }
    expect((await a.json<{ hits: unknown[] }>(["search", "marmoset"])).hits).toHaveLength(2);
  });

  test("`zerodb append` and `fact set` reach the server without `zerodb sync`; within the minute none starts, a trailing one waits it out", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const a = machine(dir.path, "a");
    const reader = machine(dir.path, "reader");
    await configure(a, server.url, tok);
    expect((await a.run(["append", "--session", "s", "marmoset from the cli"])).code).toBe(0);
    expect(await serverTurns(reader, server.url, tok, (c) => c.length === 1)).toEqual(["marmoset from the cli"]);
    await settled(a);
    // The stamp says a sync started within the minute: the next write starts none now; a trailing one waits out the minute.
    const data = join(a.home, "zerodb", "data");
    const stamp = join(data, STAMP_FILE);
    expect(existsSync(stamp)).toBe(true);
    const before = statSync(stamp).mtimeMs;
    expect((await a.run(["fact", "set", "lang", "rust"])).code).toBe(0);
    expect(statSync(stamp).mtimeMs).toBe(before);
    expect(existsSync(join(data, OWED_FILE))).toBe(true);
    expect((await a.json<{ sync?: { waiting: number } }>(["capture", "status"])).sync?.waiting).toBe(1);
    // The minute over (the stamp made older): the trailing sync sends the fact, without another write.
    age(stamp);
    expect(await serverFact(reader, server.url, tok, "lang")).toBe("rust");
    await settled(a);
    expect(existsSync(join(data, OWED_FILE))).toBe(false);
    // After the minute, the next write starts one at once.
    age(stamp);
    expect((await a.run(["append", "--session", "s", "marmoset second"])).code).toBe(0);
    expect(await serverTurns(reader, server.url, tok, (c) => c.length === 2)).toEqual(["marmoset from the cli", "marmoset second"]);
  });

  test("issue 30: a write right after a background sync reaches the other machine without another write", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const a = machine(dir.path, "a");
    const b = machine(dir.path, "b");
    await configure(a, server.url, tok);
    await configure(b, server.url, tok);
    expect((await a.run(["append", "--session", "s", "quokka first"])).code).toBe(0);
    await settled(a);
    // Right after that sync: the write's own sync is owed, and a trailing one is on its way.
    const r = await a.run(["append", "--session", "s", "quokka right after"]);
    expect({ code: r.code, stdout: r.stdout.trim(), stderr: r.stderr }).toEqual({ code: 0, stdout: "appended: lsn 2", stderr: "" });
    age(join(a.home, "zerodb", "data", STAMP_FILE));
    await settled(a);
    expect(await b.sync(server.url, tok)).toMatchObject({ pulled: 2 });
    expect(await b.turns()).toEqual({ s: ["quokka first", "quokka right after"] });
  });

  test("MCP remember reaches the server in the background; one owed when the session ends starts then", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const a = machine(dir.path, "a");
    const reader = machine(dir.path, "reader");
    await configure(a, server.url, tok);
    {
      await using mcp = await startMcp({ home: a.home });
      const first = await mcp.call("remember", { content: "marmoset via mcp", session: "s" });
      expect(first.isError).toBeFalsy();
      expect(await serverTurns(reader, server.url, tok, (c) => c.length === 1)).toEqual(["marmoset via mcp"]);
      await settled(a);
      // Within the minute: the tool answers at once and its sync waits for the interval, or for the session's end.
      const second = await mcp.call("remember", { content: "marmoset at the end", session: "s" });
      expect(second.isError).toBeFalsy();
      expect((await a.json<{ sync?: { waiting: number } }>(["capture", "status"])).sync?.waiting).toBe(1);
    }
    expect(await serverTurns(reader, server.url, tok, (c) => c.length === 2)).toEqual(["marmoset at the end", "marmoset via mcp"]);
  });

  test("`zerodb capture sync` (the SessionEnd catch-up) sends what it captured in the background", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const a = machine(dir.path, "a");
    const reader = machine(dir.path, "reader");
    await configure(a, server.url, tok);
    const layout = claudeLayout(a.home);
    const sid = "21111111-2222-4333-8444-555555555555";
    writeTranscript(layout.transcript(sid), sid, layout.cwd, 4, "marmoset");
    const r = await a.json<{ appended: number }>(["capture", "sync", "--transcript", layout.transcript(sid)]);
    expect(r.appended).toBe(4);
    await settled(a);
    const hits = await reader.json<{ hits: unknown[] }>(["search", "marmoset", "--url", server.url, "--token-file", tok, "--limit", "10"]);
    expect(hits.hits).toHaveLength(4);
  });
});
