/**
 * The PostgreSQL engine's data beyond the shared contract (DESIGN.md 11, 12):
 * search through the word and trigram indexes and in conversation, forget
 * and what a byte scan finds after it, export and import.
 */
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { TapeRecord } from "../../../src/schema/tape.ts";
import { openStore } from "../../../src/store/index.ts";
import { tempDir } from "../../helpers.ts";
import { postgresForFile, type TestPostgres } from "./_server.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

/** The code of the error a promise rejects with. */
async function failure(p: Promise<unknown>): Promise<{ code?: string }> {
  return p.then(
    () => ({}),
    (e: { code?: string }) => ({ code: e.code }),
  );
}

if (!server) {
  describe("PostgreSQL engine", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  describe("PostgreSQL engine", () => {
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
      // Search's postings (migration 003) hold no stem of the hidden row, nor any row for it.
      const postings = await sql`SELECT count(*) AS n FROM postings WHERE lsn = 1 OR term LIKE '%zebra%' OR term = 'launch'`;
      await sql.close();
      expect(Number(rows[0].n)).toBe(0);
      expect(Number(postings[0].n)).toBe(0);
      expect(record.map((r: { data: unknown }) => r.data)).toEqual([{ hidden: 1, lsns: [[1, 1]] }]);
    });

    test("search past the postings' newest 1000 rows of each word: rows holding all the words, and a filter that turns the newest away", async () => {
      using dir = tempDir("zerodb-pg-deep-");
      const store = await openStore({ dataDir: dir.path, database: await server.database() });
      const m = store.memory("alice");
      // The oldest rows: one holding both common words, one in another session holding one of them.
      const [both] = (await m.append({ session: "old", entries: [{ role: "note", content: "glacier meets avalanche" }] })).entries;
      const [other] = (await m.append({ session: "quiet", entries: [{ role: "note", content: "a glacier, once" }] })).entries;
      // 1100 rows of each word, in batches of 220 (an append takes at most 256).
      for (const word of ["glacier", "avalanche"])
        for (let b = 0; b < 5; b++)
          await m.append({ session: "busy", entries: Array.from({ length: 220 }, (_, i) => ({ role: "note" as const, content: `${word} report ${b} ${i}` })) });
      // Neither word's newest 1000 rows holds the first row: only the rows holding both words find it.
      expect((await m.search({ query: "glacier avalanche", limit: 3 })).hits[0]!.lsn).toBe(both!.lsn);
      // Every listed row is in another session: the filtered word index finds this one.
      expect((await m.search({ query: "glacier", session: "quiet" })).hits.map((h) => h.lsn)).toEqual([other!.lsn]);
      store.close();
    });

    test("migration 003 fills the postings from rows written before it; a forget then deletes a hidden row's, and search finds through them", async () => {
      using dir = tempDir("zerodb-pg-postings-");
      const url = await server.database();
      const store = await openStore({ dataDir: dir.path, database: url });
      const m = store.memory("alice");
      await m.append({ session: "old", entries: [{ role: "note", content: "the walrus sings at dawn" }] });
      await m.append({ session: "gone", entries: [{ role: "note", content: "the walrus hides a secret" }] });
      await m.forget({ selector: { session: "gone" } });
      await store.memory("bob").append({ session: "b", entries: [{ role: "note", content: "a walrus for bob" }] });
      store.close();
      // Back to schema 2, as a database written before postings existed.
      const sql = new SQL(url);
      await sql.unsafe(`DROP TABLE postings; DROP FUNCTION zerodb_postings_insert, zerodb_postings_drop CASCADE; UPDATE zerodb_schema SET version = 2`);
      const again = await openStore({ dataDir: dir.path, database: url });
      const expected = await sql`SELECT t.tenant, w.term, t.lsn FROM tape t, unnest(tsvector_to_array(t.words)) AS w(term)
        WHERE t.words IS NOT NULL AND t.forgotten_by IS NULL ORDER BY 1, 2, 3`;
      const filled = await sql`SELECT tenant, term, lsn FROM postings ORDER BY 1, 2, 3`;
      expect(filled.length).toBeGreaterThan(0);
      expect(filled.map((r: object) => ({ ...r }))).toEqual(expected.map((r: object) => ({ ...r })));
      expect(filled.some((r: { term: string }) => r.term === "secret")).toBe(false);
      expect((await again.memory("alice").search({ query: "walrus" })).hits.map((h) => h.session)).toEqual(["old"]);
      // After the migration the triggers keep it: a new row adds its stems, a forget deletes them.
      const a = again.memory("alice");
      const [fresh] = (await a.append({ session: "new", entries: [{ role: "note", content: "walrus tusks" }] })).entries;
      expect((await sql`SELECT count(*) AS n FROM postings WHERE lsn = ${fresh!.lsn} AND term = 'tusk'`)[0].n).toBe("1");
      await a.forget({ selector: { session: "new" } });
      expect((await sql`SELECT count(*) AS n FROM postings WHERE lsn = ${fresh!.lsn}`)[0].n).toBe("0");
      expect((await a.search({ query: "walrus tusks" })).hits.map((h) => h.session)).toEqual(["old"]);
      again.close();
      await sql.close();
    });

    test("byte scan: forgotten content, names and object bytes leave the data files with VACUUM FULL (the README's step); the WAL keeps them", async () => {
      using dir = tempDir("zerodb-pg-scan-");
      const url = await server.database();
      const store = await openStore({ dataDir: dir.path, database: url });
      const m = store.memory("alice");
      for (let i = 0; i < 20; i++) await m.append({ session: "keep", entries: [{ role: "note", content: `filler ${i}` }] });
      // The marker is in the content and in the session's name (the sessions table and its key).
      await m.append({ session: "qzvxsecretq/plans", entries: [{ role: "note", content: "qzvxsecretq marker" }] });
      await m.forget({ selector: { session: "qzvxsecretq/plans" } });
      // An object's bytes too: its chunks are deleted by the forget, their old versions stay until the same step.
      const { object } = await m.objectPut(new TextEncoder().encode("object bytes qzvxsecretq ".repeat(100)));
      await m.forget({ selector: { object } });
      store.close();
      const marker = Buffer.from("qzvxsecretq");
      const found = (sub: string) => filesHolding(join(server.dataDir, sub), marker).length;
      const sql = new SQL(url);
      await sql`CHECKPOINT`;
      // After forget alone: the old row versions in the tables' pages, the stems and names in their indexes.
      expect(found("base")).toBeGreaterThan(0);
      // Plain VACUUM is not the step: it frees a dead row's space without erasing it, and index pages keep keys.
      await sql.unsafe("VACUUM FULL tape, postings, sessions, facts, objects, blob_chunks");
      await sql`CHECKPOINT`;
      await sql.close();
      expect(found("base")).toBe(0);
      // The WAL still holds the insert until its segments are recycled (README, "Team server on PostgreSQL").
      expect(found("pg_wal")).toBeGreaterThan(0);
    });
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
