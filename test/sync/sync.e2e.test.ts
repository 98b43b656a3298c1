/**
 * `zerodb sync` end to end (issue 30, DESIGN.md 16): machines in homes of
 * their own syncing through a real `zerodb serve` (SQLite behind it) on
 * loopback, driven through the built binary.
 */
import { describe, expect, test } from "bun:test";
import { statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { filesContaining, tempDir } from "../helpers.ts";
import { startServer } from "../http/_server.ts";
import { seeded } from "../seed.ts";
import { spawnUi } from "../http/viewer/_ui.ts";
import { STAMP_FILE } from "../../src/sync/background.ts";
import { claudeLayout, runHook, writeTranscript } from "../capture/_fixtures.ts";
import { countingProxy, machine, teamServer, tokenFile } from "./_machines.ts";

/** A JSONL export of `n` turns of the local tenant, cycling through sessions in runs, for `zerodb import`. */
function tape(n: number, sessions: string[], tag: string, run = 37): string {
  const ts = new Date(Date.UTC(2026, 0, 1)).toISOString();
  let out = "";
  for (let i = 1; i <= n; i++) {
    const session = sessions[Math.floor((i - 1) / run) % sessions.length]!;
    out += `${JSON.stringify({ lsn: i, tenant: "local", ts, kind: "turn", session, role: "note", content: `${tag} note ${i} about topic${i % 7}`, meta: {} })}\n`;
  }
  return out;
}

describe("zerodb sync", () => {
  test("two machines: each finds the other's turns, a second sync moves nothing, order kept", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const a = machine(dir.path, "a");
    const b = machine(dir.path, "b");
    for (const c of ["flux capacitor needs 1.21 gigawatts", "second thought from A"]) expect((await a.run(["append", "--session", "proj/x", c])).code).toBe(0);
    expect((await b.run(["append", "--session", "proj/y", "zebra crossing on the desktop"])).code).toBe(0);

    // What a machine just pushed is not pulled back: its pulled cursor passes its own records (server LSNs 1, 2, then 3).
    expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 2, pulled: 0, tenant: "team", pulled_through: 2 });
    expect(await b.sync(server.url, tok)).toMatchObject({ pushed: 1, pulled: 2, pulled_through: 3 });
    expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 1, pulled_through: 3 });
    // Nothing new anywhere: nothing moves.
    expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
    expect(await b.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });

    const hits = await b.json<{ hits: { session: string; lsn: number }[] }>(["search", "flux capacitor"]);
    expect(hits.hits.map((h) => h.session)).toEqual(["proj/x"]);
    // Each replicated turn says which machine wrote it.
    const read = await b.json<{ turns: { content: string; meta: { origin?: { store: string; lsn: number } } }[] }>(["read", "--session", "proj/x"]);
    expect(read.turns.map((t) => t.content)).toEqual(["flux capacitor needs 1.21 gigawatts", "second thought from A"]);
    expect(read.turns.map((t) => t.meta.origin?.lsn)).toEqual([1, 2]);
    expect(await a.turns()).toEqual(await b.turns());
  });

  test(
    "exactly once under kill -9 at random points of both machines' syncs",
    seeded(async (random) => {
      using dir = tempDir();
      await using server = await teamServer(dir.path);
      const { tok } = server;
      const a = machine(dir.path, "a");
      const b = machine(dir.path, "b");
      writeFileSync(join(dir.path, "a.jsonl"), tape(2400, ["a/0", "a/1", "a/2", "shared"], "A"));
      writeFileSync(join(dir.path, "b.jsonl"), tape(900, ["b/0", "shared"], "B"));
      expect((await a.run(["import", join(dir.path, "a.jsonl")])).code).toBe(0);
      expect((await b.run(["import", join(dir.path, "b.jsonl")])).code).toBe(0);
      await a.run(["fact", "set", "k", "from-a"]);

      const { ZERODB } = await import("../helpers.ts");
      const killed = async (home: string) => {
        const proc = Bun.spawn([ZERODB, "sync", "--url", server.url, "--token-file", tok, "--json"], {
          cwd: home,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb") },
          stdin: "ignore",
          stdout: "ignore",
          stderr: "ignore",
        });
        // A kill point somewhere between start-up and the end of a full sync.
        const timer = setTimeout(() => proc.kill("SIGKILL"), 30 + Math.floor(random() * 900));
        await proc.exited;
        clearTimeout(timer);
      };
      for (let i = 0; i < 6; i++) {
        // Both machines at once, as two machines would.
        await Promise.all([killed(a.home), killed(b.home)]);
      }
      for (const m of [a, b, a]) await m.sync(server.url, tok);
      const [onA, onB] = [await a.turns(), await b.turns()];
      expect(Object.keys(onA).sort()).toEqual(["a/0", "a/1", "a/2", "b/0", "shared"]);
      // Every turn once on every replica; each machine's turns of a session in their order.
      for (const name of Object.keys(onA)) {
        expect(new Set(onA[name]).size).toBe(onA[name]!.length);
        expect([...onA[name]!].sort()).toEqual([...onB[name]!].sort());
        for (const tag of ["A", "B"]) {
          const mine = (list: string[]) => list.filter((c) => c.startsWith(`${tag} `));
          expect(mine(onB[name]!)).toEqual(mine(onA[name]!));
        }
      }
      const total = Object.values(onA).reduce((n, l) => n + l.length, 0);
      expect(total).toBe(3300);
      const stats = await machine(dir.path, "c").json<{ turns: { count: number } }>(["stats", "--url", server.url, "--token-file", tok]);
      expect(stats.turns.count).toBe(3300);
      expect((await b.json<{ value: string }>(["fact", "get", "k"])).value).toBe("from-a");
      expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
      expect(await b.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
    }),
    240_000,
  );

  test("a fact has one latest value everywhere: the server's order decides", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const a = machine(dir.path, "a");
    const b = machine(dir.path, "b");
    await a.run(["fact", "set", "editor", "vim"]);
    await b.run(["fact", "set", "editor", "emacs"]);
    await a.sync(server.url, tok); // vim reaches the server first
    // B's own emacs has not reached the server: it will, later than vim, so vim does not become B's value.
    expect(await b.sync(server.url, tok)).toMatchObject({ pushed: 1, facts_superseded: 1 });
    await a.sync(server.url, tok);
    for (const m of [a, b]) expect((await m.json<{ value: string }>(["fact", "get", "editor"])).value).toBe("emacs");
    await a.run(["fact", "set", "editor", "helix"]);
    await a.sync(server.url, tok);
    await b.sync(server.url, tok);
    for (const m of [a, b]) expect((await m.json<{ value: string }>(["fact", "get", "editor"])).value).toBe("helix");
  });

  test("a forget reaches the other machine and hides only what the forgetting one had seen", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok, home: srvHome } = server;
    const a = machine(dir.path, "a");
    const b = machine(dir.path, "b");
    await a.run(["append", "--session", "s", "the launch code is marmalade-quokka"]);
    await a.run(["fact", "set", "pet", "quokka-fact-value"]);
    await a.sync(server.url, tok);
    await b.sync(server.url, tok);
    // B writes in the session before it hears of the forget; A has not seen it when it forgets.
    await b.run(["append", "--session", "s", "B wrote this later, pelican"]);
    expect((await a.run(["forget", "--session", "s"])).code).toBe(0);
    expect((await a.run(["forget", "--fact", "pet"])).code).toBe(0);
    expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 2 });
    expect(await b.sync(server.url, tok)).toMatchObject({ pulled: 2, pushed: 1 });
    await a.sync(server.url, tok);
    for (const m of [a, b]) {
      expect(await m.turns()).toEqual({ s: ["B wrote this later, pelican"] });
      expect((await m.run(["fact", "get", "pet"])).code).toBe(1);
      expect((await m.json<{ hits: unknown[] }>(["search", "marmalade"])).hits).toEqual([]);
      // Purged from every file of the store, journal included (I9).
      expect(filesContaining(join(m.home, "zerodb", "data"), "marmalade-quokka")).toEqual([]);
      expect(filesContaining(join(m.home, "zerodb", "data"), "quokka-fact-value")).toEqual([]);
    }
    expect(filesContaining(join(srvHome, "zerodb", "data"), "marmalade-quokka")).toEqual([]);
    // The forgotten turn is never pushed back, and the forget does not travel twice.
    expect(await b.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
    expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
  });

  test("objects travel once by digest; a blob the server holds is not sent again: no object bytes go over the wire", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const a = machine(dir.path, "a");
    const b = machine(dir.path, "b");
    const file = join(dir.path, "pic.bin");
    const bytes = crypto.getRandomValues(new Uint8Array(300_000));
    writeFileSync(file, bytes);
    const put = await a.json<{ object: string }>(["object", "put", file, "--type", "application/octet-stream"]);
    // Every sync of this test goes through a proxy that counts the body bytes each way.
    const proxy = countingProxy(server.url);
    try {
      expect(await a.sync(proxy.url, tok)).toMatchObject({ pushed: 1, objects_sent: 1 });
      expect(proxy.sent()).toBeGreaterThanOrEqual(bytes.length);
      expect(await b.sync(proxy.url, tok)).toMatchObject({ pulled: 1, objects_received: 1 });
      expect(proxy.received()).toBeGreaterThanOrEqual(bytes.length);
      // A third machine that holds the same bytes already fetches nothing, and sends none of them.
      const c = machine(dir.path, "c");
      await c.json(["object", "put", file, "--type", "application/octet-stream"]);
      const [sent, received] = [proxy.sent(), proxy.received()];
      expect(await c.sync(proxy.url, tok)).toMatchObject({ objects_received: 0, objects_sent: 0, objects_skipped: 1 });
      expect(proxy.sent() - sent).toBeLessThan(10_000);
      expect(proxy.received() - received).toBeLessThan(10_000);
    } finally {
      proxy.stop();
    }
    const out = join(dir.path, "got.bin");
    expect((await b.run(["object", "get", put.object, "--out", out])).code).toBe(0);
    expect(Buffer.from(await Bun.file(out).arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  });

  test("offline: exit 1 with one line, local work goes on, the next sync catches up", async () => {
    using dir = tempDir();
    const srvHome = join(dir.path, "server");
    const tok = await tokenFile(srvHome, "team", join(dir.path, "team.token"));
    const a = machine(dir.path, "a");
    let server = await startServer(srvHome);
    const url = server.url;
    await a.run(["append", "--session", "s", "before the outage"]);
    await a.sync(url, tok);
    await server.stop();
    expect((await a.run(["append", "--session", "s", "during the outage"])).code).toBe(0);
    const r = await a.run(["sync", "--url", url, "--token-file", tok]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("cannot reach");
    // doctor says when the store last synced and what waits, without the network.
    const doc = await a.json<{ checks: { name: string; status: string; detail: string }[] }>(["doctor"]).catch(() => undefined);
    const line = doc?.checks.find((c) => c.name === "sync");
    expect(line).toMatchObject({ status: "pass", detail: expect.stringContaining("1 records waiting to be pushed") });
    // capture status says the same, for people and in its JSON.
    const status = await a.json<{ sync?: { url: string; waiting: number; last_sync?: string } }>(["capture", "status"]);
    expect(status.sync).toMatchObject({ url, waiting: 1, last_sync: expect.any(String) });
    const human = await a.run(["capture", "status"]);
    expect(human.stdout).toContain(`with ${url} (tenant team); 1 record(s) waiting to be pushed: run \`zerodb sync\``);
    // And the viewer of `zerodb ui`, the machine's own user.
    {
      await using ui = spawnUi(a.home);
      const link = await ui.firstLine();
      const cookie = (await fetch(link, { redirect: "manual" })).headers.get("set-cookie")!.split(";")[0]!;
      const page = await (await fetch(new URL("/ui/capture", link), { headers: { cookie } })).text();
      expect(page).toContain("1 record(s) waiting to be pushed: run zerodb sync.");
    }
    server = await startServer(srvHome, ["--port", new URL(url).port]);
    try {
      expect(await a.sync(url, tok)).toMatchObject({ pushed: 1, pulled: 0 });
    } finally {
      await server.stop();
    }
  });

  test("a capture hook that wrote starts a sync in the background, at most once a minute", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const a = machine(dir.path, "a");
    await a.run(["sessions"]);
    writeFileSync(join(a.home, "zerodb", "config.json"), JSON.stringify({ sync: { url: server.url, token_file: tok } }), { mode: 0o600 });
    const layout = claudeLayout(a.home);
    const sid = "11111111-2222-4333-8444-555555555555";
    writeTranscript(layout.transcript(sid), sid, layout.cwd, 4, "wombat");
    expect((await runHook(layout, "Stop", sid)).code).toBe(0);
    // The hook returned before its sync did: wait (bounded) for the detached sync to finish.
    let status: { sync?: { waiting: number; last_sync?: string } } = {};
    for (let i = 0; i < 300 && !(status.sync?.last_sync && status.sync.waiting === 0); i++) {
      await Bun.sleep(200);
      status = await a.json(["capture", "status"]);
    }
    expect(status.sync).toMatchObject({ waiting: 0, last_sync: expect.any(String) });
    const b = machine(dir.path, "b");
    expect((await b.sync(server.url, tok)).pulled).toBeGreaterThanOrEqual(4);
    expect(
      Object.values(await b.turns())
        .flat()
        .filter((t) => t.includes("wombat")),
    ).toHaveLength(4);
    // Another run within the minute writes, and starts none: the stamp stays.
    const stamp = join(a.home, "zerodb", "data", STAMP_FILE);
    const before = statSync(stamp).mtimeMs;
    writeTranscript(layout.transcript(sid), sid, layout.cwd, 6, "wombat");
    expect((await runHook(layout, "Stop", sid)).code).toBe(0);
    expect(statSync(stamp).mtimeMs).toBe(before);
    expect((await a.json<{ sync?: { waiting: number } }>(["capture", "status"])).sync?.waiting).toBeGreaterThan(0);
    // The minute over (the stamp made older), the trailing sync that run started sends what it wrote, without another run.
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(stamp, old, old);
    for (let i = 0; i < 150 && !(status.sync?.waiting === 0 && statSync(stamp).mtimeMs > before); i++) {
      await Bun.sleep(200);
      status = await a.json(["capture", "status"]);
    }
    expect(status.sync?.waiting).toBe(0);
    await b.sync(server.url, tok);
    const wombats = async (m: typeof a) =>
      Object.values(await m.turns())
        .flat()
        .filter((t) => t.includes("wombat"))
        .sort();
    expect((await wombats(a)).length).toBeGreaterThan(4);
    expect(await wombats(b)).toEqual(await wombats(a));
  });

  test("plain `zerodb sync` reads the config; a second sync of a store while one runs is refused", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const a = machine(dir.path, "a");
    await a.run(["append", "--session", "s", "configured"]);
    writeFileSync(join(a.home, "zerodb", "config.json"), JSON.stringify({ sync: { url: server.url, token_file: tok } }), { mode: 0o600 });
    expect(await a.json(["sync"])).toMatchObject({ pushed: 1, pulled: 0 });
    const { takeSyncLock } = await import("../../src/sync/journal.ts");
    const lock = takeSyncLock(join(a.home, "zerodb", "data"));
    try {
      const r = await a.run(["sync"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("another `zerodb sync` of this store is running");
    } finally {
      lock.release();
    }
    expect(await a.json(["sync"])).toMatchObject({ pushed: 0, pulled: 0 });
  });

  test("a bad token or another tenant's token is refused, nothing written", async () => {
    using dir = tempDir();
    const srvHome = join(dir.path, "server");
    const tok = await tokenFile(srvHome, "team", join(dir.path, "team.token"));
    const other = await tokenFile(srvHome, "other", join(dir.path, "other.token"));
    const bad = join(dir.path, "bad.token");
    writeFileSync(bad, "zdb_not_a_real_token\n", { mode: 0o600 });
    await using server = await startServer(srvHome);
    const a = machine(dir.path, "a");
    await a.run(["append", "--session", "s", "only for team"]);
    const refused = await a.run(["sync", "--url", server.url, "--token-file", bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("refused the token");
    await a.sync(server.url, tok);
    const wrong = await a.run(["sync", "--url", server.url, "--token-file", other]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("tenant other");
    expect(wrong.stderr.trim().split("\n")).toHaveLength(1);
    const c = machine(dir.path, "c");
    expect((await c.json<{ turns: { count: number } }>(["stats", "--url", server.url, "--token-file", other])).turns.count).toBe(0);
    expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
  });
});
