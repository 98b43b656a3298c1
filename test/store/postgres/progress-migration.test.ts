/**
 * PostgreSQL migration 4 (issue 28), as SQLite's migration 8
 * (test/search/progress-migration.test.ts): a database at schema 3 holding
 * what the previous release captured (test/fixtures/progress-store: its
 * export, with each row's class as that release gave it) is rendered again
 * row for row as SQLite's migration renders it, and as today's capture
 * would store the same lines.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { SourceFile, readBatch } from "../../../src/capture/read-batch.ts";
import { transcriptSources } from "../../../src/capture/sync.ts";
import { SearchClass } from "../../../src/search/search-class.ts";
import { CURSOR_START } from "../../../src/store/capture-cursors.ts";
import { openStore } from "../../../src/store/index.ts";
import { MIGRATIONS } from "../../../src/store/postgres/migrate.ts";
import { openSqliteStore } from "../../../src/store/sqlite/store.ts";
import { tempDir } from "../../helpers.ts";
import { importFixtureExport, postgresForFile, type TestPostgres } from "./_server.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

const FIXTURE = join(import.meta.dir, "..", "..", "fixtures", "progress-store");
const SID = "22222222-3333-4444-8555-666666666666";
const SESSION = "app-70467eff/7303dad5f020a7d9";

/** Every turn of a SQLite store's file: its text, meta and class, by LSN. */
function sqliteTurns(file: string): Map<number, { text: string; meta: unknown; sclass: number }> {
  const db = new Database(file, { readonly: true });
  const rows = db.query("SELECT lsn, text, data, sclass FROM tape WHERE kind = 'turn' ORDER BY lsn").all() as {
    lsn: number;
    text: string;
    data: string;
    sclass: number;
  }[];
  db.close();
  return new Map(rows.map((r) => [r.lsn, { text: r.text, meta: JSON.parse(r.data).meta ?? {}, sclass: r.sclass }]));
}

if (!server) {
  describe("PostgreSQL migration 4", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  describe("PostgreSQL migration 4", () => {
    test("a schema 3 database of the previous release's capture is rendered again as on SQLite, and a replay of every line is a duplicate", async () => {
      using dir = tempDir("zerodb-pg-progress-");
      const url = await server.database();
      // The previous release's rows: its export, imported, with the classes it gave them; then back to schema 3.
      await importFixtureExport(dir.path, url, join(FIXTURE, "export.jsonl"));
      const old = sqliteTurns(join(FIXTURE, "data", "zerodb.sqlite"));
      const admin = new SQL(url);
      try {
        for (const [lsn, row] of old) await admin`UPDATE tape SET sclass = ${row.sclass} WHERE lsn = ${lsn}`;
        await admin`UPDATE zerodb_schema SET version = 3`;
        expect(MIGRATIONS.length).toBeGreaterThanOrEqual(4);

        const progress: [string, number, number][] = [];
        const store = await openStore({ dataDir: dir.path, database: url, onProgress: (what, done, total) => progress.push([what, done, total]) });
        try {
          // The step says how far it is, as SQLite's migration 8 does.
          expect(progress.at(-1)?.[0]).toBe("migration 4: subagent messages and summaries");
          expect(progress.at(-1)?.[1]).toBe(progress.at(-1)?.[2]);
          expect(progress.at(-1)![2]).toBeGreaterThan(0);
          const m = store.memory("local");
          const lsns = async (query: string, include_noise = false) => (await m.search({ query, include_noise })).hits.map((h) => h.lsn).sort((a, b) => a - b);
          expect(await lsns("zqxretrybudget", true)).toEqual([27]);
          expect(await lsns("zqxbackoffcurve")).toEqual([17, 18]);
          expect(await lsns("zqxcompactword")).toEqual([22, 33]);
          // The postings follow the new words: the note that replaced a copy holds none of the finding.
          expect(await admin`SELECT lsn FROM postings WHERE term = 'zqxretrybudget' ORDER BY lsn`).toEqual([{ lsn: "27" }]);

          // Row for row what SQLite's migration 8 makes of the same store.
          using sqliteDir = tempDir("zerodb-pg-progress-sqlite-");
          cpSync(join(FIXTURE, "data"), sqliteDir.path, { recursive: true });
          openSqliteStore(sqliteDir.path).close();
          const migrated = sqliteTurns(join(sqliteDir.path, "zerodb.sqlite"));
          const pg = (await admin`SELECT lsn, text, data::text AS data, sclass FROM tape WHERE kind = 'turn' ORDER BY lsn`) as {
            lsn: string;
            text: string;
            data: string;
            sclass: number;
          }[];
          expect(new Map(pg.map((r) => [Number(r.lsn), { text: r.text, meta: JSON.parse(r.data).meta ?? {}, sclass: r.sclass }]))).toEqual(migrated);
          expect([5, 13, 17, 22, 33].map((lsn) => migrated.get(lsn)!.sclass)).toEqual([
            SearchClass.noise,
            SearchClass.prompt,
            SearchClass.tool_result,
            SearchClass.summary,
            SearchClass.summary,
          ]);

          // Today's capture of the same lines: every entry a duplicate, none a conflict (I3).
          for (const source of transcriptSources(join(FIXTURE, "transcripts", `${SID}.jsonl`)).sources) {
            using file = new SourceFile(source);
            const limits = { entries: 1000, bytes: 1 << 30, firstFree: true };
            const read = readBatch(source, file, { start: CURSOR_START, session: SESSION, redact: true, limits, deadline: undefined }, new Set())!;
            const r = await m.append({ session: SESSION, entries: read.batch.entries.map((e) => e.entry) });
            expect(r.entries.filter((e) => !e.duplicate)).toEqual([]);
          }
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
