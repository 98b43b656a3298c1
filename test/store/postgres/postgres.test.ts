/**
 * What the PostgreSQL engine promises beyond the shared contract (DESIGN.md
 * 12, issue 16): I4 with writers in several processes, a newer schema
 * refused, no password in messages, and `zerodb serve --database` with two
 * servers on one database.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectHttpMemory } from "../../../src/client/http.ts";
import { resolveConfig } from "../../../src/config.ts";
import type { TapeRecord } from "../../../src/schema/tape.ts";
import { openStore } from "../../../src/store/index.ts";
import { ZERODB_SRC, tempDir } from "../../helpers.ts";
import { startPostgres, type TestPostgres } from "./_server.ts";

const started = await startPostgres();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

// Stopping waits for PostgreSQL's shutdown checkpoint.
afterAll(async () => {
  await server?.stop();
}, 30_000);

/** The code of the error a promise rejects with. */
async function failure(p: Promise<unknown>): Promise<{ code?: string }> {
  return p.then(
    () => ({}),
    (e: { code?: string }) => ({ code: e.code }),
  );
}

/** Spawns a process and returns its stdout, failing on a non-zero exit with its stderr. */
async function output(cmd: string[]): Promise<string> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}: ${err}`);
  return out;
}

describe("choosing the PostgreSQL engine", () => {
  test("config `database` <- ZERODB_DATABASE <- the flag, and only postgres:// URLs in the config", () => {
    using dir = tempDir("zerodb-pg-config-");
    const configFile = join(dir.path, "config.json");
    writeFileSync(configFile, JSON.stringify({ database: "postgres://file@db/x" }));
    const resolve = (flags: { database?: string }, env: Record<string, string>) => resolveConfig({ ...flags, config: configFile }, { env }).database;
    expect(resolve({}, {})).toBe("postgres://file@db/x");
    expect(resolve({}, { ZERODB_DATABASE: "postgres://env@db/x" })).toBe("postgres://env@db/x");
    expect(resolve({ database: "postgres://flag@db/x" }, { ZERODB_DATABASE: "postgres://env@db/x" })).toBe("postgres://flag@db/x");
    writeFileSync(configFile, JSON.stringify({ database: "mysql://db/x" }));
    expect(() => resolve({}, {})).toThrow(/database/);
  });

  test("serve refuses a --database that is not a postgres:// URL, without echoing it", async () => {
    using home = tempDir("zerodb-pg-flag-");
    const proc = Bun.spawn(["bun", ZERODB_SRC, "serve", "--port", "0", "--database", "https://user:hunter2@db/x"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home.path, ZERODB_HOME: join(home.path, "zerodb") },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ out, code }).toEqual({ out: "", code: 2 });
    expect(err).toContain("database: must be a postgres:// URL");
    expect(err).not.toContain("hunter2");
  });
});

if (!server) {
  describe("PostgreSQL engine", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  describe("PostgreSQL engine", () => {
    test("I4: a reader paging with `after` while writers in four processes append never skips a turn", async () => {
      using dir = tempDir("zerodb-pg-i4-");
      const url = await server.database();
      // The schema is made once before the writers race to open it.
      const store = await openStore({ dataDir: dir.path, database: url });
      const m = store.memory("alice");
      const writers = ["w1", "w2", "w3", "w4"].map((id) => output(["bun", join(import.meta.dir, "_writer.ts"), url, dir.path, id, "40"]));
      let done = false;
      const all = Promise.all(writers).finally(() => {
        done = true;
      });
      // Tails the session as a capture viewer would: each page starts after the last LSN seen.
      const seen: number[] = [];
      let after = 0;
      for (;;) {
        const finished = done;
        const page = await m.read({ session: "s", after, limit: 7 });
        for (const t of page.turns) seen.push(t.lsn);
        if (page.turns.length > 0) after = page.turns[page.turns.length - 1]!.lsn;
        else if (finished) break;
      }
      const given = (await all).flatMap((o) => JSON.parse(o) as number[]);
      const everything: number[] = [];
      for (let a = 0; ; ) {
        const page = await m.read({ session: "s", after: a, limit: 1000 });
        everything.push(...page.turns.map((t) => t.lsn));
        if (page.next === null) break;
        a = page.next;
      }
      store.close();
      // 4 writers x 40 batches of 1, 2 or 3 turns: each turn exactly once, in LSN order, and the tail saw every one.
      expect(given.length).toBe(4 * (14 * 1 + 13 * 2 + 13 * 3));
      expect(new Set(given).size).toBe(given.length);
      expect(everything).toEqual([...given].sort((x, y) => x - y));
      expect(seen).toEqual(everything);
    }, 60_000);

    test("a database written by a newer zerodb is refused with `incompatible`", async () => {
      using dir = tempDir("zerodb-pg-newer-");
      const url = await server.database();
      (await openStore({ dataDir: dir.path, database: url })).close();
      const sql = new SQL(url);
      await sql`UPDATE zerodb_schema SET version = 99`;
      await sql.close();
      const err = await openStore({ dataDir: dir.path, database: url }).then(
        () => undefined,
        (e: { code?: string; message?: string }) => e,
      );
      expect(err?.code).toBe("incompatible");
      expect(err?.message).toContain("newer zerodb");
    });

    test("the password never shows: not in Store.dataDir, not in the error for a wrong one or a server that is down", async () => {
      using dir = tempDir("zerodb-pg-secret-");
      const url = await server.database();
      const store = await openStore({ dataDir: dir.path, database: url });
      expect(store.dataDir).not.toContain("test-secret");
      expect(store.dataDir).toContain("***");
      store.close();
      const wrong = url.replace("test-secret", "wrong-secret-42");
      const bad = await openStore({ dataDir: dir.path, database: wrong }).then(
        () => undefined,
        (e: { code?: string; message?: string }) => e,
      );
      expect(bad?.code).toBe("unavailable");
      expect(bad?.message).not.toContain("wrong-secret-42");
      const down = url.replace(/:\d+\//, ":1/");
      const gone = await openStore({ dataDir: dir.path, database: down }).then(
        () => undefined,
        (e: { code?: string; message?: string }) => e,
      );
      expect(gone?.code).toBe("unavailable");
      expect(gone?.message).not.toContain("test-secret");
    });

    test("search: identifier parts from the word index, a substring of an identifier from the trigram index, CJK bigrams", async () => {
      using dir = tempDir("zerodb-pg-search-");
      const store = await openStore({ dataDir: dir.path, database: await server.database() });
      const m = store.memory("alice");
      const [ident, cjk] = (
        await m.append({
          session: "s",
          entries: [
            { role: "note", content: "raise uploadRetryCount to five" },
            { role: "note", content: "決済イベントの処理が遅い" },
          ],
        })
      ).entries.map((e) => e.lsn);
      await m.append({ session: "s", entries: [{ role: "note", content: "nothing relevant here" }] });
      const lsns = async (query: string) => (await m.search({ query })).hits.map((h) => h.lsn);
      expect(await lsns("retry count")).toEqual([ident!]);
      expect(await lsns("loadretry")).toEqual([ident!]);
      expect(await lsns("イベント")).toEqual([cjk!]);
      // Another tenant's words never count: bob finds nothing of alice's.
      expect((await store.memory("bob").search({ query: "uploadRetryCount" })).hits).toEqual([]);
      store.close();
    });

    test("a laptop's export imports onto the team server record for record; keys stay reserved and new LSNs follow", async () => {
      using laptopDir = tempDir("zerodb-pg-laptop-");
      using teamDir = tempDir("zerodb-pg-team-");
      const laptop = await openStore({ dataDir: laptopDir.path });
      const l = laptop.memory("local");
      await l.append({ session: "proj/a", entries: [{ role: "user", content: "how do we deploy?", meta: { n: 1 }, idem_key: "k1" }] });
      await l.append({ session: "proj/b", entries: [{ role: "note", content: "forget this one", idem_key: "gone" }] });
      await l.factSet({ key: "owner", value: { name: "alice" }, idem_key: "f1" });
      await l.linkAdd({ url: "https://example.com/runbook", title: "runbook" });
      await l.objectPut(new TextEncoder().encode("bytes"), { name: "b.txt", type: "text/plain" });
      await l.forget({ selector: { session: "proj/b" } });
      const records: TapeRecord[] = [];
      for await (const r of laptop.exportTape()) records.push(r);
      laptop.close();
      async function* stream() {
        yield* records;
      }
      const team = await openStore({ dataDir: teamDir.path, database: await server.database() });
      expect(await team.importTape(stream())).toEqual({ records: records.length, last_lsn: records[records.length - 1]!.lsn });
      const again: TapeRecord[] = [];
      for await (const r of team.exportTape()) again.push(r);
      expect(again).toEqual(records);
      const t = team.memory("local");
      expect((await t.read({ session: "proj/a" })).turns.map((x) => x.content)).toEqual(["how do we deploy?"]);
      expect((await t.search({ query: "deploy" })).hits.length).toBe(1);
      expect((await t.factGet({ key: "owner" })).value).toEqual({ name: "alice" });
      // The forgotten key is still reserved (I3), and a new write takes an LSN after every imported one (I1).
      const replay = await t.append({ session: "proj/b", entries: [{ role: "note", content: "forget this one", idem_key: "gone" }] });
      expect(replay.entries[0]!.duplicate).toBe(true);
      const [fresh] = (await t.append({ session: "proj/c", entries: [{ role: "note", content: "new" }] })).entries;
      expect(fresh!.lsn).toBeGreaterThan(records[records.length - 1]!.lsn);
      expect((await failure(team.importTape(stream()))).code).toBe("conflict");
      team.close();
    });

    test("connections the server drops: a read is retried on a fresh one; a write retried with its key lands once", async () => {
      using dir = tempDir("zerodb-pg-drop-");
      const url = await server.database();
      const store = await openStore({ dataDir: dir.path, database: url });
      const m = store.memory("alice");
      await m.append({ session: "s", entries: [{ role: "note", content: "before" }] });
      const admin = new SQL(url);
      // What a server restart does to every pooled connection (57P01).
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`;
      expect((await m.read({ session: "s" })).turns.map((t) => t.content)).toEqual(["before"]);
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`;
      const entry = { role: "note" as const, content: "after", idem_key: "once" };
      const codes: string[] = [];
      // Each dead pooled connection fails one attempt (at most the pool size of 10).
      for (let attempt = 0; attempt < 12; attempt++) {
        const r = await m.append({ session: "s", entries: [entry] }).then(
          () => "ok",
          (e: { code: string; message: string }) => {
            expect(e.message).not.toContain("test-secret");
            return e.code;
          },
        );
        codes.push(r);
        if (r === "ok") break;
      }
      await admin.close({ timeout: 1 });
      expect(codes[codes.length - 1]).toBe("ok");
      expect(codes.slice(0, -1).every((c) => c === "unavailable")).toBe(true);
      expect((await m.read({ session: "s" })).turns.map((t) => t.content)).toEqual(["before", "after"]);
      store.close();
    });

    test("search reads a turn in its conversation: the answer after a question holding the words ranks above a newer chance match", async () => {
      using dir = tempDir("zerodb-pg-context-");
      const store = await openStore({ dataDir: dir.path, database: await server.database() });
      const m = store.memory("alice");
      const [, answer] = (
        await m.append({
          session: "chat",
          entries: [
            { role: "user", content: "how do we rotate the deploy key?" },
            { role: "assistant", content: "run the rotate script from the ops folder, then restart" },
          ],
        })
      ).entries.map((e) => e.lsn);
      const [chance] = (await m.append({ session: "other", entries: [{ role: "assistant", content: "we rotate the logs daily" }] })).entries.map((e) => e.lsn);
      const hits = (await m.search({ query: "rotate deploy key" })).hits.map((h) => h.lsn);
      expect(hits.indexOf(answer!)).toBeLessThan(hits.indexOf(chance!));
      store.close();
    });

    test("the CLI on ZERODB_DATABASE: token create and import act on the shared database", async () => {
      using dir = tempDir("zerodb-pg-cli-");
      const url = await server.database();
      const laptop = await openStore({ dataDir: join(dir.path, "laptop") });
      await laptop.memory("local").append({ session: "proj", entries: [{ role: "note", content: "moved to the team server" }] });
      const lines: string[] = [];
      for await (const r of laptop.exportTape()) lines.push(JSON.stringify(r));
      laptop.close();
      writeFileSync(join(dir.path, "export.jsonl"), `${lines.join("\n")}\n`);
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir.path, ZERODB_HOME: join(dir.path, "zerodb"), ZERODB_DATABASE: url };
      const run = async (args: string[]) => {
        const proc = Bun.spawn(["bun", ZERODB_SRC, ...args], { env, cwd: dir.path, stdout: "pipe", stderr: "pipe" });
        const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
        return { code, out: out + err };
      };
      const created = await run(["token", "create", "--tenant", "team"]);
      expect(created.code).toBe(0);
      expect(created.out).not.toContain("test-secret");
      const imported = await run(["import", join(dir.path, "export.jsonl")]);
      expect(imported.code).toBe(0);
      const team = await openStore({ dataDir: join(dir.path, "team"), database: url });
      expect((await team.tokens.list()).tokens.map((t) => t.tenant)).toEqual(["team"]);
      expect((await team.memory("local").read({ session: "proj" })).turns.map((t) => t.content)).toEqual(["moved to the team server"]);
      team.close();
    }, 30_000);

    test("forget leaves no content in the tape's live rows or the word index", async () => {
      using dir = tempDir("zerodb-pg-forget-");
      const url = await server.database();
      const store = await openStore({ dataDir: dir.path, database: url });
      const m = store.memory("alice");
      await m.append({ session: "s", entries: [{ role: "note", content: "the launch code is zebra-4471", idem_key: "secret-key" }] });
      await m.forget({ selector: { session: "s" } });
      store.close();
      const sql = new SQL(url);
      const rows = await sql`SELECT count(*) AS n FROM tape WHERE text LIKE '%zebra%' OR data::text LIKE '%zebra%' OR words::text LIKE '%zebra%'
        OR idem_key = 'secret-key' OR subject = 's'`;
      const record = await sql`SELECT data FROM tape WHERE kind = 'forget'`;
      await sql.close();
      expect(Number(rows[0].n)).toBe(0);
      expect(record.map((r: { data: unknown }) => r.data)).toEqual([{ hidden: 1, lsns: [[1, 1]] }]);
    });

    test("byte scan: forgotten content stays in dead tuples until VACUUM FULL (the README's step), and in the WAL after it", async () => {
      using dir = tempDir("zerodb-pg-scan-");
      const url = await server.database();
      const store = await openStore({ dataDir: dir.path, database: url });
      const m = store.memory("alice");
      for (let i = 0; i < 20; i++) await m.append({ session: "keep", entries: [{ role: "note", content: `filler ${i}` }] });
      await m.append({ session: "s", entries: [{ role: "note", content: "qzvx-forgettable-marker" }] });
      await m.forget({ selector: { session: "s" } });
      store.close();
      const marker = Buffer.from("qzvx-forgettable");
      const found = (sub: string) => filesHolding(join(server.dataDir, sub), marker);
      const sql = new SQL(url);
      await sql`CHECKPOINT`;
      // What PostgreSQL keeps after forget alone: the old row version in the heap and index pages.
      expect(found("base").length).toBeGreaterThan(0);
      await sql.unsafe("VACUUM FULL tape");
      await sql`CHECKPOINT`;
      await sql.close();
      expect(found("base")).toEqual([]);
      // The WAL still holds the insert until its segments are recycled (README, "Team server on PostgreSQL").
      expect(found("pg_wal").length).toBeGreaterThan(0);
    });

    test("zerodb serve --database: two servers on one database, clients on both, every turn exactly once", async () => {
      using dir = tempDir("zerodb-pg-serve-");
      const url = await server.database();
      const store = await openStore({ dataDir: dir.path, database: url });
      const token = (await store.tokens.create({ tenant: "team" })).token;
      store.close();
      const serves = await Promise.all([1, 2].map((n) => startServe(join(dir.path, `home${n}`), url)));
      try {
        for (const s of serves) expect(s.stderr()).not.toContain("test-secret");
        for (const s of serves) expect(s.stderr()).toContain("postgres://postgres:***@");
        const clients = await Promise.all(serves.map((s) => connectHttpMemory({ url: s.url, token, tenant: "team" })));
        await Promise.all(
          clients.map(async (c, i) => {
            for (let k = 0; k < 15; k++)
              await c.append({ session: "shared", entries: [{ role: "note", content: `client ${i} turn ${k}`, idem_key: `${i}:${k}` }] });
          }),
        );
        const page = await clients[0]!.read({ session: "shared", limit: 1000 });
        expect(page.turns.length).toBe(30);
        expect(new Set(page.turns.map((t) => t.content)).size).toBe(30);
        expect((await clients[1]!.read({ session: "shared", limit: 1000 })).turns).toEqual(page.turns);
      } finally {
        for (const s of serves) {
          s.proc.kill("SIGTERM");
          await s.proc.exited;
        }
      }
    }, 60_000);
  });
}

/** Whether a file's bytes contain `needle`; a file PostgreSQL removed meanwhile holds nothing. */
function holds(path: string, needle: Buffer): boolean {
  try {
    return readFileSync(path).includes(needle);
  } catch {
    return false;
  }
}

/** The files under a directory whose bytes contain `needle`. */
function filesHolding(root: string, needle: Buffer): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(p);
      else if (st?.isFile() && holds(p, needle)) hits.push(p);
    }
  };
  walk(root);
  return hits;
}

/** `zerodb serve --database URL --port 0` from source, in its own home; waits for its listening line. */
async function startServe(home: string, url: string) {
  const proc = Bun.spawn(["bun", ZERODB_SRC, "serve", "--port", "0", "--database", url], {
    cwd: tempDir().path,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb") },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const m = /^zerodb listening on (http:\/\/\S+)$/m.exec(text);
    if (m && text.includes("  about:")) return { proc, url: m[1]!, stderr: () => text };
    const { value, done } = await reader.read();
    if (done) throw new Error(`zerodb serve ended: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
}
