/**
 * What the PostgreSQL engine promises beyond the shared contract (DESIGN.md
 * 12, issue 16), as a team server: how it is chosen, I4 with writers in
 * several processes, a newer schema refused, no password in messages,
 * dropped connections, the CLI and two `zerodb serve` on one database.
 */
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectHttpMemory } from "../../../src/client/http.ts";
import { resolveConfig } from "../../../src/config.ts";
import { openStore } from "../../../src/store/index.ts";
import { ZERODB_SRC, tempDir } from "../../helpers.ts";
import { startServe } from "./_serve.ts";
import { postgresForFile, type TestPostgres } from "./_server.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

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
            // An operation's error reaches HTTP clients: no host, no password (I10).
            expect(e.message).not.toContain("test-secret");
            expect(e.message).not.toContain("127.0.0.1");
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
        for (const s of serves) await s.stop();
      }
    }, 60_000);
  });
}
