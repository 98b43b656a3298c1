/**
 * `zerodb sync` through a team server on PostgreSQL (issue 30, DESIGN.md 12
 * and 16): the same guarantees as with SQLite behind the server, on a real
 * embedded PostgreSQL; pull reads the engine's export after an LSN, push
 * writes through the routes every client uses.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runJson, tempDir } from "../helpers.ts";
import { startServer } from "../http/_server.ts";
import { postgresForFile, type TestPostgres } from "../store/postgres/_server.ts";
import { escapeHeavy, machine } from "./_machines.ts";
import { CONTENT_MAX_BYTES } from "../../src/limits.ts";

const started = await postgresForFile();
const pg: TestPostgres | undefined = "error" in started ? undefined : started;

if (!pg) {
  describe("sync through PostgreSQL", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  describe("sync through PostgreSQL", () => {
    test("two machines share turns, facts, objects and a forget's exact reach", async () => {
      using dir = tempDir();
      const database = await pg.database();
      const srvHome = join(dir.path, "server");
      mkdirSync(srvHome, { recursive: true });
      const { token } = await runJson<{ token: string }>(["token", "create", "--tenant", "team", "--database", database], { home: srvHome });
      const tok = join(dir.path, "team.token");
      writeFileSync(tok, `${token}\n`, { mode: 0o600 });
      chmodSync(tok, 0o600);
      await using server = await startServer(srvHome, ["--database", database]);
      const a = machine(dir.path, "a");
      const b = machine(dir.path, "b");
      await a.run(["append", "--session", "s", "the vault combination is tangerine-okapi"]);
      await a.run(["append", "--session", "s", "second turn from A"]);
      await a.run(["fact", "set", "lang", "rust"]);
      const file = join(dir.path, "blob.bin");
      writeFileSync(file, crypto.getRandomValues(new Uint8Array(100_000)));
      await a.json(["object", "put", file, "--type", "application/octet-stream"]);
      expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 4, objects_sent: 1 });
      expect(await b.sync(server.url, tok)).toMatchObject({ pulled: 4, objects_received: 1 });
      // The hit names the machine that wrote it, on B and on the PostgreSQL server (HTTP).
      const { store: aStore } = await a.json<{ store: string }>(["sync", "--url", server.url, "--token-file", tok]);
      const origin = { store: aStore, lsn: 1 };
      expect((await b.json<{ hits: { origin?: unknown }[] }>(["search", "tangerine"])).hits.map((h) => h.origin)).toEqual([origin]);
      const serverHits = await b.json<{ hits: { origin?: unknown }[] }>(["search", "tangerine", "--url", server.url, "--token-file", tok]);
      expect(serverHits.hits.map((h) => h.origin)).toEqual([origin]);
      expect((await b.json<{ value: string }>(["fact", "get", "lang"])).value).toBe("rust");
      // B writes in the session; A forgets the session before it has seen that turn.
      await b.run(["append", "--session", "s", "B's later turn survives"]);
      await a.run(["forget", "--session", "s"]);
      expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 1 });
      expect(await b.sync(server.url, tok)).toMatchObject({ pulled: 1, pushed: 1 });
      await a.sync(server.url, tok);
      for (const m of [a, b]) {
        expect(await m.turns()).toEqual({ s: ["B's later turn survives"] });
        expect((await m.json<{ hits: unknown[] }>(["search", "tangerine"])).hits).toEqual([]);
      }
      const c = machine(dir.path, "c");
      const onServer = await c.json<{ turns: { count: number } }>(["stats", "--url", server.url, "--token-file", tok]);
      expect(onServer.turns.count).toBe(1);
      expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
      expect(await b.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
    }, 60_000);

    test("a turn too large for JSON once escaped arrives byte for byte through PostgreSQL", async () => {
      using dir = tempDir();
      const database = await pg.database();
      const srvHome = join(dir.path, "server");
      mkdirSync(srvHome, { recursive: true });
      const { token } = await runJson<{ token: string }>(["token", "create", "--tenant", "team", "--database", database], { home: srvHome });
      const tok = join(dir.path, "team.token");
      writeFileSync(tok, `${token}\n`, { mode: 0o600 });
      chmodSync(tok, 0o600);
      await using server = await startServer(srvHome, ["--database", database]);
      const a = machine(dir.path, "a");
      const b = machine(dir.path, "b");
      const big = escapeHeavy(CONTENT_MAX_BYTES, "wombatlarge ");
      expect((await a.run(["append", "--session", "big", "--no-redact"], { stdin: big })).code).toBe(0);
      expect(await a.sync(server.url, tok)).toMatchObject({ pushed: 1 });
      expect(await b.sync(server.url, tok)).toMatchObject({ pulled: 1 });
      const onB = await b.turns();
      expect(onB.big).toHaveLength(1);
      expect(onB.big![0] === big).toBe(true);
    }, 60_000);
  });
}
