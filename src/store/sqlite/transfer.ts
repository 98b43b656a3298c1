/** export and import of the tape as JSONL records (DESIGN.md 6.3). */
import type { Database } from "bun:sqlite";
import { ZeroDbError } from "../../errors.ts";
import type { TapeRecord } from "../../schema/tape.ts";
import { type ImportedRow, forgetRow, forgottenRow, importLines, liveRow, orphanForgotten } from "../import-records.ts";
import { type NewRow, insertRow } from "./_tape.ts";
import { hiddenBy } from "./forget/record.ts";
import { sqlitePayload } from "./row-data.ts";
import { applyForget, sameAsStored } from "./backup/increment.ts";
import { type Row, toRecord } from "./row-record.ts";

/**
 * Every tape row in LSN order (of one tenant, after an LSN), as records. One
 * statement: one snapshot; `lsn > ?` is a range of the primary key, so an
 * increment reads only its own rows.
 */
export function* exportRows(db: Database, opts: { tenant?: string; after?: number } = {}): Generator<TapeRecord> {
  const sql = `SELECT lsn, tenant, kind, ts, subject, idem_key, idem_digest, op_hash, text, data, checksum, forgotten_by FROM tape
               WHERE lsn > ? ${opts.tenant !== undefined ? "AND tenant = ?" : ""} ORDER BY lsn`;
  const params = opts.tenant !== undefined ? [opts.after ?? 0, opts.tenant] : [opts.after ?? 0];
  for (const row of db.query(sql).iterate(...params) as IterableIterator<Row>) yield toRecord(db, row);
}

/**
 * Restores records in one transaction, keeping their LSNs and deriving
 * sessions, facts and the index as the live writes do. Into an empty store,
 * or (issue 20) a store the records continue: those at or below its last LSN
 * must be its own and are skipped; the rest must come after every LSN it
 * ever used (I1). `check` sees each record once it parsed, before it is written.
 */
export async function importRecords(
  db: Database,
  records: AsyncIterable<unknown>,
  opts: { check?: (rec: TapeRecord) => void } = {},
): Promise<{ records: number; last_lsn: number; skipped?: number; purged?: number }> {
  // Loaded here, not with the store: its checks build the operations' schemas, which opening a store (a capture hook) never needs.
  const { checkPayload } = await import("../import-check.ts");
  // One write transaction around the whole stream: all records or none. It is
  // opened by hand because records arrive asynchronously, one line at a time,
  // so nothing is held in memory but the current record.
  db.run("BEGIN IMMEDIATE");
  try {
    const base = (db.query("SELECT coalesce(max(lsn), 0) AS n FROM tape").get() as { n: number }).n;
    // AUTOINCREMENT's high-water mark: an LSN below it was used, even if its row is gone (https://sqlite.org/autoinc.html).
    const used = (db.query("SELECT coalesce(max(seq), 0) AS n FROM sqlite_sequence WHERE name = 'tape'").get() as { n: number } | null)?.n ?? 0;
    let last = 0;
    let line = 0;
    let skipped = 0;
    let purged = 0;
    for await (const next of importLines(records)) {
      const { rec, at } = next;
      ({ line } = next);
      last = rec.lsn;
      // A restore's checks of the record against its file's header (restore-check.ts).
      opts.check?.(rec);
      if (rec.lsn <= base) {
        sameAsStored(db, rec, { base, at });
        skipped++;
        continue;
      }
      if (rec.lsn <= used) throw new ZeroDbError("conflict", `${at}: lsn ${rec.lsn} was already used in this store`, { field: `${at}.lsn` });
      checkPayload(rec, at);
      if (base > 0 && rec.kind === "forget" && !("forgotten_by" in rec)) purged += applyForget(db, rec, { base, at });
      restore(db, rec, at);
    }
    checkForgets(db);
    db.run("COMMIT");
    // skipped and purged only say something when the store held records before.
    return base > 0 ? { records: line, last_lsn: Math.max(last, base), skipped, purged } : { records: line, last_lsn: last };
  } catch (err) {
    if (db.inTransaction) db.run("ROLLBACK");
    throw err;
  }
}

/**
 * Every forgotten record names a forget of its tenant that the import holds:
 * a crafted export cannot hide rows behind a forget that never happened.
 */
function checkForgets(db: Database): void {
  const orphan = db
    .query(
      `SELECT t.lsn FROM tape t WHERE t.forgotten_by IS NOT NULL AND NOT EXISTS
         (SELECT 1 FROM tape f WHERE f.lsn = t.forgotten_by AND f.kind = 'forget' AND f.tenant = t.tenant) LIMIT 1`,
    )
    .get() as { lsn: number } | null;
  if (orphan) throw orphanForgotten(orphan.lsn);
}

/** Writes one record's row and what it derives: a turn's session, a fact's live value, a forget's time on what it hid. */
function restore(db: Database, rec: TapeRecord, at: string): void {
  if ("forgotten_by" in rec) {
    insertRow(db, sqliteRow(forgottenRow(rec)));
    db.query("UPDATE tape SET forgotten_by = ? WHERE lsn = ?").run(rec.forgotten_by, rec.lsn);
    return;
  }
  if (rec.kind === "forget") {
    insertRow(db, sqliteRow(forgetRow(rec, hiddenBy(db, rec.lsn), at)));
    // A forgotten record keeps the forget's time, not its own (as forget.ts purge does).
    db.query("UPDATE tape SET ts = ? WHERE forgotten_by = ?").run(Date.parse(rec.ts), rec.lsn);
    return;
  }
  const row = liveRow(rec);
  insertRow(db, sqliteRow(row));
  if (rec.kind === "turn") {
    db.query(
      `INSERT INTO sessions (tenant, name, turns, first_lsn, last_lsn, bytes) VALUES (?, ?, 1, ?, ?, ?)
       ON CONFLICT (tenant, name) DO UPDATE SET turns = turns + 1, last_lsn = excluded.last_lsn, bytes = bytes + excluded.bytes`,
    ).run(rec.tenant, rec.session, rec.lsn, rec.lsn, row.bytes);
  } else if (rec.kind === "fact") {
    db.query("INSERT INTO facts (tenant, key, lsn) VALUES (?, ?, ?) ON CONFLICT (tenant, key) DO UPDATE SET lsn = excluded.lsn").run(
      rec.tenant,
      rec.key,
      rec.lsn,
    );
  }
}

/** A row as SQLite holds it (row-data.ts). */
function sqliteRow(row: ImportedRow): NewRow {
  return { ...row, ...sqlitePayload(row) };
}
