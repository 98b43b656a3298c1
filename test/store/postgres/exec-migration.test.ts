/**
 * PostgreSQL migration 7, as SQLite's migration 10
 * (test/search/exec-migration.test.ts): a database at schema 6 holding what
 * the previous release captured of a Codex rollout (test/fixtures/exec-store:
 * its export, with each row's class as that release gave it) has its
 * exec_command_end notes rendered again row for row, hash for hash, as
 * SQLite's migration renders them and as today's capture stores the same
 * lines; text holding U+0000 and U+FDD0 comes out encoded as an append
 * encodes it (src/store/postgres/nul.ts).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { captureSession, projectSession } from "../../../src/project.ts";
import { SearchClass } from "../../../src/search/search-class.ts";
import { openStore } from "../../../src/store/index.ts";
import { MIGRATIONS } from "../../../src/store/postgres/migrate.ts";
import { decodeText } from "../../../src/store/postgres/nul.ts";
import { openSqliteStore } from "../../../src/store/sqlite/store.ts";
import { replayRollout } from "../../capture/_codex.ts";
import { CWD, ROLLOUT, THREAD } from "../../fixtures/exec-store/make.ts";
import { tempDir } from "../../helpers.ts";
import { importFixtureExport, postgresForFile, type TestPostgres } from "./_server.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

const FIXTURE = join(import.meta.dir, "..", "..", "fixtures", "exec-store");
const SESSION = captureSession(projectSession(CWD), THREAD);

/** A row as both engines are compared: text, meta, class, hashes (lowercase hex). */
interface Compared {
  text: string;
  meta: unknown;
  sclass: number;
  op: string;
  content: string;
  bytes: number;
}

/** Every turn of a SQLite store's file, by LSN. */
function sqliteTurns(file: string): Map<number, Compared> {
  const db = new Database(file, { readonly: true });
  const rows = db
    .query("SELECT lsn, text, data, sclass, lower(hex(op_hash)) AS op, lower(hex(content_hash)) AS content, bytes FROM tape WHERE kind = 'turn' ORDER BY lsn")
    .all() as { lsn: number; text: string; data: string; sclass: number; op: string; content: string; bytes: number }[];
  db.close();
  return new Map(
    rows.map((r) => [r.lsn, { text: r.text, meta: JSON.parse(r.data).meta ?? {}, sclass: r.sclass, op: r.op, content: r.content, bytes: r.bytes }]),
  );
}

if (!server) {
  describe("PostgreSQL migration 7", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  describe("PostgreSQL migration 7", () => {
    test("a schema 6 database of the previous release's Codex capture is rendered again as on SQLite; a replay of every line is a duplicate", async () => {
      using dir = tempDir("zerodb-pg-exec-");
      const url = await server.database();
      // The previous release's rows: its export, imported, with the classes it gave them; then back to schema 6.
      await importFixtureExport(dir.path, url, join(FIXTURE, "export.jsonl"));
      // The fixture's store, copied: opening it where it is would leave a WAL index in the checkout.
      using sqliteDir = tempDir("zerodb-pg-exec-sqlite-");
      cpSync(join(FIXTURE, "data"), sqliteDir.path, { recursive: true });
      const old = sqliteTurns(join(sqliteDir.path, "zerodb.sqlite"));
      const admin = new SQL(url);
      try {
        for (const [lsn, row] of old) await admin`UPDATE tape SET sclass = ${row.sclass} WHERE lsn = ${lsn}`;
        const [notes] = await admin`SELECT count(*)::int AS n FROM tape WHERE starts_with(text, '[event_msg exec_command_end] {') AND sclass = 9`;
        expect(notes.n).toBe(5);
        await admin`UPDATE zerodb_schema SET version = 6`;
        expect(MIGRATIONS.length).toBe(7);

        const progress: [string, number, number][] = [];
        const store = await openStore({ dataDir: dir.path, database: url, onProgress: (what, done, total) => progress.push([what, done, total]) });
        try {
          expect(progress).toEqual([["migration 7: Codex command output", 5, 5]]);

          // Row for row, hash for hash, what SQLite's migration 10 makes of the same store.
          openSqliteStore(sqliteDir.path).close();
          const migrated = sqliteTurns(join(sqliteDir.path, "zerodb.sqlite"));
          const pg = (await admin`SELECT lsn, text, data::text AS data, sclass, encode(op_hash, 'hex') AS op, encode(content_hash, 'hex') AS content, bytes
            FROM tape WHERE kind = 'turn' ORDER BY lsn`) as {
            lsn: string;
            text: string;
            data: string;
            sclass: number;
            op: string;
            content: string;
            bytes: string;
          }[];
          expect(
            new Map(
              pg.map((r) => [
                Number(r.lsn),
                // The text as written (stored encoded); no meta here holds U+0000 or a noncharacter.
                { text: decodeText(r.text), meta: JSON.parse(r.data).meta ?? {}, sclass: r.sclass, op: r.op, content: r.content, bytes: Number(r.bytes) },
              ]),
            ),
          ).toEqual(migrated);
          const end = [...migrated].find(([, r]) => (r.meta as { position?: number }).position === 20)!;
          expect(end[1].text).toBe("[tool_result]\n$ ./scripts/reconcile.sh\nProceed? y\u0000\nReconciled 3 ledgers \uFDD0.\n");
          // Stored encoded, as an append stores it: U+0000 as U+FDD0, the text's own U+FDD0 behind U+FDD1.
          expect(pg.find((r) => Number(r.lsn) === end[0])!.text).toBe(
            "[tool_result]\n$ ./scripts/reconcile.sh\nProceed? y\uFDD0\nReconciled 3 ledgers \uFDD1\uFDD0.\n",
          );
          expect(end[1].sclass).toBe(SearchClass.tool_result);

          const m = store.memory("local");
          const run = [...migrated].find(([, r]) => (r.meta as { position?: number }).position === 7)![0];
          const { hits } = await m.search({ query: "ledger-reconcile tests 12 passed" });
          expect(hits[0]!.lsn).toBe(run);
          // The postings follow the new words: a word only the note's JSON held is gone.
          expect(await admin`SELECT lsn FROM postings WHERE term LIKE '%zqxoldword%'`).toEqual([]);
          expect((await m.search({ query: "zqxoldword", include_noise: true })).hits).toEqual([]);

          // Today's capture of the same lines: every entry a duplicate, none a conflict (I3).
          expect(await replayRollout(m, { path: join(FIXTURE, ROLLOUT), thread: THREAD, session: SESSION })).toEqual({ entries: 22, fresh: 0 });
          const [sum] = await admin`SELECT sum(bytes)::bigint AS b FROM tape WHERE kind = 'turn' AND subject = ${SESSION} AND forgotten_by IS NULL`;
          const [listed] = await admin`SELECT bytes FROM sessions WHERE name = ${SESSION}`;
          expect(listed.bytes).toBe(sum.b);
        } finally {
          store.close();
        }
      } finally {
        await admin.close();
      }
    }, 120_000);
  });
}
