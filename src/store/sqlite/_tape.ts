/** Writing tape rows and checking idempotency keys (DESIGN.md D4, I3). */
import type { Database } from "bun:sqlite";
import { ZeroDbError } from "../../errors.ts";
import { idemDigest, rowChecksum } from "../hashes.ts";
import { prefixEnd } from "../ranges.ts";
import { storeIdOf } from "./identity.ts";
import { SearchClass } from "../../search/search-class.ts";
import { indexRow, indexRows, kindClass } from "./search/word-index.ts";

/** A tape row to insert. */
export interface NewRow {
  /** Set only by import, which restores exported LSNs. */
  lsn?: number;
  tenant: string;
  kind: "turn" | "fact" | "forget" | "link" | "object";
  ts: number;
  subject: string | null;
  idemKey: string | null;
  /** A forgotten row's idempotency key digest (idemDigest); set only by import. */
  idemDigest?: Uint8Array | null;
  opHash: Uint8Array | null;
  contentHash: Uint8Array | null;
  bytes: number;
  text: string | null;
  data: string | null;
  /** A turn's search class, from its role and meta (turnClass); other kinds take their kind's. */
  sclass?: SearchClass;
  /** The text's index text when it was computed already (indexText(text), by prepareTurns). */
  index?: string;
  /** The row's checksum when it was computed already, for this store (rowChecksum, by prepareTurns). */
  checksum?: Uint8Array;
}

export { rowChecksum } from "../hashes.ts";

/** The columns a payload check needs. */
export interface Checked {
  lsn: number;
  subject: string | null;
  text: string | null;
  data: string | null;
  checksum: Uint8Array | null;
}

/**
 * Refuses to serve a row whose bytes changed on disk since they were written
 * (bytes overwritten in the file): `corrupt`, never wrong data.
 */
export function verifyRow<T extends Checked>(db: Database, row: T): T {
  const expected = rowChecksum(storeIdOf(db), row);
  if (!row.checksum || Buffer.compare(Buffer.from(row.checksum), Buffer.from(expected)) !== 0) {
    throw new ZeroDbError("corrupt", `record ${row.lsn} failed its checksum: the store file is damaged; run \`zerodb doctor\``);
  }
  return row;
}

/**
 * Inserts one tape row and returns its LSN. The LSN is the rowid SQLite just
 * assigned (lsn is the INTEGER PRIMARY KEY), read before any other insert on
 * this connection; `RETURNING` would cost about three times the insert itself
 * in bun:sqlite (measured by the store bench, issue 8).
 */
export function insertRow(db: Database, row: NewRow): number {
  const r = db
    .query(
      `INSERT INTO tape (lsn, tenant, kind, ts, subject, idem_key, idem_digest, op_hash, content_hash, bytes, text, data, checksum, sclass)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.lsn ?? null,
      row.tenant,
      row.kind,
      row.ts,
      row.subject,
      row.idemKey,
      row.idemDigest ?? null,
      row.opHash,
      row.contentHash,
      row.bytes,
      row.text,
      row.data,
      row.checksum ?? rowChecksum(storeIdOf(db), row),
      rowClass(row),
    );
  const lsn = Number(r.lastInsertRowid);
  if (row.text !== null) indexRow(db, { lsn, tenant: row.tenant, text: row.text }, row.index);
  return lsn;
}

/** A row's search class: a turn's from its role and meta, other kinds their kind's, a row without text a note's. */
function rowClass(row: NewRow): SearchClass {
  return row.text === null ? SearchClass.note : (row.sclass ?? kindClass(row.kind));
}

/** Rows one INSERT statement of insertRows writes at most: 12 columns each, far under SQLite's 32,766 parameters. */
export const ROWS_PER_INSERT = 64;

const insertSqls: string[] = [];

/** The INSERT of `n` new tape rows, one statement (db.query caches it: one text per row count). */
function insertSql(n: number): string {
  const one = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  return (insertSqls[n] ??=
    `INSERT INTO tape (tenant, kind, ts, subject, idem_key, op_hash, content_hash, bytes, text, data, checksum, sclass) VALUES ${Array(n).fill(one).join(", ")}`);
}

/**
 * Inserts new tape rows (no `lsn`, no `idemDigest`: what an append writes)
 * and their word index text, ROWS_PER_INSERT rows to a statement instead of
 * two statements a row (issue 32), and returns their LSNs in order. The rows
 * of one statement take consecutive LSNs: SQLite inserts a VALUES list row by
 * row, each taking the next rowid, and no trigger inserts into the tape (the
 * count of rows written is checked, so a statement that wrote fewer fails).
 */
export function insertRows(db: Database, rows: NewRow[]): number[] {
  const storeId = storeIdOf(db);
  const lsns: number[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = rows.slice(i, i + ROWS_PER_INSERT);
    const args: (string | number | Uint8Array | null)[] = [];
    for (const r of part) {
      if (r.lsn !== undefined || r.idemDigest != null) throw new ZeroDbError("internal", "insertRows writes new rows only: no lsn, no idem digest");
      args.push(
        r.tenant,
        r.kind,
        r.ts,
        r.subject,
        r.idemKey,
        r.opHash,
        r.contentHash,
        r.bytes,
        r.text,
        r.data,
        r.checksum ?? rowChecksum(storeId, r),
        rowClass(r),
      );
    }
    const done = db.query(insertSql(part.length)).run(...args);
    if (done.changes !== part.length) throw new ZeroDbError("internal", `an insert of ${part.length} tape rows wrote ${done.changes}`);
    const first = Number(done.lastInsertRowid) - part.length + 1;
    for (let j = 0; j < part.length; j++) lsns.push(first + j);
  }
  const indexed: { lsn: number; tenant: string; text: string; index?: string }[] = [];
  for (const [i, r] of rows.entries())
    if (r.text !== null) indexed.push({ lsn: lsns[i]!, tenant: r.tenant, text: r.text, ...(r.index !== undefined ? { index: r.index } : {}) });
  indexRows(db, indexed);
  return lsns;
}

/** Keys looked up per query by heldKeys. */
const KEYS_PER_QUERY = 256;

/**
 * Which of `keys` the tenant holds, live or forgotten: a held key is never
 * written again (I3). Live keys are looked up KEYS_PER_QUERY at a time (a
 * statement per key cost a tenth of a capture commit). `forgotten: false`
 * says the caller knows, in this transaction, that the tenant has no
 * forgotten key (no digest to hash and look up).
 */
export function heldKeys(db: Database, tenant: string, keys: string[], opts: { forgotten?: boolean } = {}): Set<string> {
  const held = new Set<string>();
  for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
    const part = keys.slice(i, i + KEYS_PER_QUERY);
    const sql = `SELECT idem_key FROM tape WHERE tenant = ? AND idem_key IN (${part.map(() => "?").join(", ")})`;
    // A full part's statement is cached (always the same text); the last, shorter part's is not.
    const cached = part.length === KEYS_PER_QUERY;
    const stmt = cached ? db.query(sql) : db.prepare(sql);
    for (const row of stmt.all(tenant, ...part) as { idem_key: string }[]) held.add(row.idem_key);
    if (!cached) stmt.finalize();
  }
  if (opts.forgotten !== false) {
    for (const key of keys)
      if (!held.has(key) && db.query("SELECT 1 FROM tape WHERE tenant = ? AND idem_digest = ?").get(tenant, idemDigest(tenant, key)) !== null) held.add(key);
  }
  return held;
}

/**
 * Looks up an idempotency key. Returns the original LSN when the same
 * operation was done before, undefined when the key is new, and throws
 * `conflict` when the key named a different operation. A forgotten
 * operation kept neither its content nor a hash of it (a hash of a PIN is
 * the PIN: 10,000 guesses), so a replay of its key, whatever it carries,
 * returns the original LSN as a duplicate and writes nothing.
 */
export function priorWrite(db: Database, write: { tenant: string; idemKey: string; opHash: Uint8Array; field: string }): number | undefined {
  const { tenant, idemKey, opHash, field } = write;
  const prior = db.query("SELECT lsn, op_hash FROM tape WHERE tenant = ? AND idem_key = ?").get(tenant, idemKey) as {
    lsn: number;
    op_hash: Uint8Array | null;
  } | null;
  if (!prior) {
    const forgotten = db.query("SELECT lsn FROM tape WHERE tenant = ? AND idem_digest = ?").get(tenant, idemDigest(tenant, idemKey)) as { lsn: number } | null;
    return forgotten?.lsn;
  }
  if (prior.op_hash && Buffer.compare(Buffer.from(prior.op_hash), Buffer.from(opHash)) === 0) return prior.lsn;
  throw new ZeroDbError("conflict", `${field}: this idempotency key was already used for a different write`, { field });
}

/**
 * One idempotent write in a BEGIN IMMEDIATE transaction: when `idemKey` named
 * this same operation before, the original LSN comes back as a duplicate and
 * nothing is written (I3); otherwise `write` runs and its LSN comes back.
 */
export function writeOnce(
  db: Database,
  tenant: string,
  idem: { key: string | undefined; opHash: Uint8Array | null },
  write: () => number,
): { lsn: number; duplicate: boolean } {
  return db
    .transaction(() => {
      if (idem.key) {
        const prior = priorWrite(db, { tenant, idemKey: idem.key, opHash: idem.opHash!, field: "idem_key" });
        if (prior !== undefined) return { lsn: prior, duplicate: true };
      }
      return { lsn: write(), duplicate: false };
    })
    .immediate();
}

/** SQL condition and parameters for "column starts with prefix" that can use an index. */
export function prefixRange(column: string, prefix: string | undefined): { sql: string; params: string[] } {
  if (!prefix) return { sql: "1", params: [] };
  const end = prefixEnd(prefix);
  return end === null ? { sql: `${column} >= ?`, params: [prefix] } : { sql: `(${column} >= ? AND ${column} < ?)`, params: [prefix, end] };
}

/** An LSN's time as ISO 8601. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
