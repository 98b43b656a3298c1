/**
 * Planner statistics hold no user text (issue 29 item 2, DESIGN.md 12):
 * ANALYZE copies samples of column values into pg_statistic, which the role
 * zerodb connects as reads through pg_stats. Two tenants write distinctive
 * text into every place user text goes (turns, session names, meta, keys,
 * facts, links, objects, capture cursors, search stems); neither pg_stats
 * read as the zerodb role, nor pg_statistic read as a superuser, nor
 * pg_statistic's files hold any of it, before or after a forget, and a
 * database that an older release analyzed loses the statistics it had.
 */
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../../src/store/index.ts";
import type { Memory, Store } from "../../../src/store/types.ts";
import { tempDir } from "../../helpers.ts";
import { type TestPostgres, postgresForFile } from "./_server.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

/** The marker of each tenant's text: one word, so it is also a search stem. */
const MARK = { alice: "qzalicemarkq", bob: "qzbobmarkq" } as const;

/** Rows enough that ANALYZE keeps common values and histogram bounds of every column. */
const ROWS = 40;

/** Writes the tenant's marker into every place user text goes, many times. */
async function writeEverywhere(store: Store, tenant: keyof typeof MARK): Promise<void> {
  const m: Memory = store.memory(tenant);
  const w = MARK[tenant];
  for (let i = 0; i < ROWS; i++) {
    await m.append({
      session: `${w}/s${i % 4}`,
      entries: [{ role: "user", content: `${w} said ${w} ${i % 3}`, meta: { tool: `${w}tool`, n: i % 2 }, idem_key: `${w}-key-${i % 5}-${i}` }],
    });
  }
  for (let i = 0; i < ROWS / 4; i++) await m.factSet({ key: `${w}/fact${i % 3}`, value: `${w} value ${i % 2}` });
  for (let i = 0; i < ROWS / 4; i++) await m.linkAdd({ url: `https://${w}.example.com/${i % 2}`, title: `${w} title`, note: `${w} note` });
  await m.objectPut(new TextEncoder().encode(`${w} object bytes`), { name: `${w}.txt` });
  const cursor = { offset: 10, position: 1, chunk: 0 };
  await store.capture(tenant).commit({
    source: `${w}-source`,
    session: `${w}/capture`,
    path: `/home/${w}/transcript.jsonl`,
    start: { offset: 0, position: 0, chunk: 0 },
    end: cursor,
    entries: [{ entry: { role: "user", content: `${w} captured`, idem_key: `${w}-source:0:0` }, before: { offset: 0, position: 0, chunk: 0 } }],
  });
}

/** Forgets everything the tenant wrote. */
async function forgetAll(m: Memory): Promise<void> {
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  const r = await m.forget({ selector: { before: tomorrow } });
  expect(r.hidden).toBeGreaterThan(0);
}

/** Every value pg_stats shows the role for zerodb's tables, as text. */
async function visibleStats(role: SQL): Promise<string> {
  const rows = await role`SELECT tablename, attname, most_common_vals::text AS mcv, histogram_bounds::text AS hist, most_common_elems::text AS elems
    FROM pg_stats WHERE schemaname = 'public'`;
  return JSON.stringify(rows);
}

/** Every value pg_statistic holds, as a superuser reads it. */
async function allStatistics(admin: SQL): Promise<string> {
  const rows = await admin`SELECT starelid::regclass::text AS rel, staattnum, stavalues1::text AS v1, stavalues2::text AS v2, stavalues3::text AS v3,
    stavalues4::text AS v4, stavalues5::text AS v5 FROM pg_statistic`;
  return JSON.stringify(rows);
}

/** The bytes of pg_statistic's files (the heap, its free space map and its TOAST table with its index) in the database. */
async function statisticFiles(admin: SQL, dataDir: string): Promise<Buffer[]> {
  const rows = await admin`SELECT pg_relation_filepath(c.oid) AS path FROM pg_class c
    WHERE c.oid = 'pg_statistic'::regclass OR c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'pg_statistic'::regclass)
       OR c.oid = (SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'pg_statistic'::regclass))`;
  const out: Buffer[] = [];
  for (const { path } of rows as { path: string }[]) {
    const dir = join(dataDir, path, "..");
    const base = path.split("/").at(-1)!;
    for (const name of readdirSync(dir))
      if (name === base || name.startsWith(`${base}_`) || name.startsWith(`${base}.`)) out.push(readFileSync(join(dir, name)));
  }
  return out;
}

/** Whether any text, or any file, holds a marker. */
function holds(where: (string | Buffer)[], marker: string): boolean {
  return where.some((w) => (typeof w === "string" ? w.includes(marker) : w.includes(Buffer.from(marker))));
}

/** A database owned by a role of its own, as a team server's is: its URL for that role, and the role's connection. */
async function ownDatabase(admin: SQL, url: string, name: string): Promise<{ url: string }> {
  await admin.unsafe(`CREATE ROLE ${name} LOGIN PASSWORD 'role-secret'`);
  await admin.unsafe(`CREATE DATABASE ${name} OWNER ${name} STRATEGY FILE_COPY`);
  const u = new URL(url);
  u.username = name;
  u.password = "role-secret";
  u.pathname = `/${name}`;
  return { url: u.toString() };
}

let roles = 0;

if (!server) {
  describe("PostgreSQL statistics", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  describe("PostgreSQL statistics", () => {
    test("ANALYZE and forget leave no tenant's text in pg_stats, pg_statistic or its files; numbers keep their statistics", async () => {
      using dir = tempDir("zerodb-pg-stats-");
      const cluster = new SQL(server.url);
      const name = `zerodb_stats_${process.pid}_${++roles}`;
      const db = await ownDatabase(cluster, server.url, name);
      const store = await openStore({ dataDir: dir.path, database: db.url });
      const role = new SQL(db.url);
      const u = new URL(server.url);
      u.pathname = `/${name}`;
      const admin = new SQL(u.toString());
      try {
        await writeEverywhere(store, "alice");
        await writeEverywhere(store, "bob");
        // As autovacuum would, run by the owner: the zerodb role.
        await role`ANALYZE`;
        const live = [await visibleStats(role), await allStatistics(admin)];
        for (const marker of Object.values(MARK)) expect(holds(live, marker), marker).toBe(false);
        // The planner still knows the columns it needs: tenants, kinds, LSNs.
        const kept = await role`SELECT attname FROM pg_stats WHERE tablename = 'tape' AND attname IN ('tenant', 'kind', 'lsn') ORDER BY attname`;
        expect(kept.map((r: { attname: string }) => r.attname)).toEqual(["kind", "lsn", "tenant"]);

        await forgetAll(store.memory("alice"));
        await role`ANALYZE`;
        await admin`CHECKPOINT`;
        const after = [await visibleStats(role), await allStatistics(admin), ...(await statisticFiles(admin, server.dataDir))];
        for (const marker of Object.values(MARK)) expect(holds(after, marker), marker).toBe(false);
        // The role cannot read pg_statistic itself: pg_stats is all it sees.
        expect(
          await role`SELECT count(*) FROM pg_statistic`.then(
            () => "read",
            (e: Error) => e.message,
          ),
        ).toContain("permission denied");
      } finally {
        store.close();
        await role.close();
        await admin.close();
        await cluster.close();
      }
    }, 120_000);

    test("a database an older release analyzed loses every value statistic of user text when it is opened", async () => {
      using dir = tempDir("zerodb-pg-stats-old-");
      const url = await server.database();
      const first = await openStore({ dataDir: dir.path, database: url });
      await writeEverywhere(first, "alice");
      first.close();
      const admin = new SQL(url);
      try {
        // As schema 5 left it: every column with the default target, analyzed.
        const columns = await admin`SELECT c.relname, a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
          WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped AND a.attstattarget = 0`;
        expect(columns.length).toBeGreaterThan(0);
        for (const { relname, attname } of columns as { relname: string; attname: string }[])
          await admin.unsafe(`ALTER TABLE ${relname} ALTER COLUMN "${attname}" SET STATISTICS -1`);
        await admin`ANALYZE`;
        expect(holds([await allStatistics(admin)], MARK.alice)).toBe(true);
        await admin`UPDATE zerodb_schema SET version = 5`;
        const store = await openStore({ dataDir: dir.path, database: url });
        store.close();
        expect(holds([await visibleStats(admin), await allStatistics(admin)], MARK.alice)).toBe(false);
        await admin`ANALYZE`;
        expect(holds([await visibleStats(admin), await allStatistics(admin)], MARK.alice)).toBe(false);
        // Object bytes stay out of line and uncompressed.
        const [storage] = await admin`SELECT attstorage FROM pg_attribute WHERE attrelid = 'blob_chunks'::regclass AND attname = 'bytes'`;
        expect(storage.attstorage).toBe("e");
      } finally {
        await admin.close();
      }
    }, 120_000);

    test("every text, JSON, word-vector and byte column of zerodb's tables has no value statistics, but for tenant and kind names", async () => {
      using dir = tempDir("zerodb-pg-stats-columns-");
      const url = await server.database();
      const store = await openStore({ dataDir: dir.path, database: url });
      store.close();
      const admin = new SQL(url);
      try {
        const rows = await admin`SELECT c.relname || '.' || a.attname AS col, coalesce(a.attstattarget, -1) AS target FROM pg_attribute a
          JOIN pg_class c ON c.oid = a.attrelid
          WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
            AND a.atttypid IN ('text'::regtype, 'jsonb'::regtype, 'tsvector'::regtype, 'bytea'::regtype)
          ORDER BY 1`;
        const keep = new Set([
          "tape.tenant",
          "tape.kind",
          "sessions.tenant",
          "facts.tenant",
          "postings.tenant",
          "tokens.tenant",
          "tokens.id",
          "capture_cursors.tenant",
        ]);
        const withStats = (rows as { col: string; target: number }[]).filter((r) => r.target !== 0).map((r) => r.col);
        expect(withStats.sort()).toEqual([...keep].sort());
      } finally {
        await admin.close();
      }
    });
  });
}
