/**
 * The bare-SQLite reference of the write figures (issue 32): the same rows,
 * written into a store of the same schema (every index of the tape, the word
 * index, sessions, capture cursors) in the same transactions, with the
 * store's pragmas (WAL, synchronous=FULL, secure_delete), by one prepared
 * statement per row and nothing else: every value, down to checksums and
 * index text, is computed before the clock starts. What zerodb adds to a
 * write is its figure's distance from this one, measured in the same run.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { indexText } from "../../src/search/text.ts";
import { DB_FILE } from "../../src/store/sqlite/paths.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tenantToken } from "../../src/store/sqlite/search/word-index.ts";

/** A tape row as stored, plus the text the word index holds for it. */
export interface BareRow {
  tenant: string;
  kind: string;
  ts: number;
  subject: string | null;
  idem_key: string | null;
  op_hash: Uint8Array | null;
  content_hash: Uint8Array | null;
  bytes: number;
  text: string | null;
  data: string | null;
  checksum: Uint8Array | null;
  sclass: number;
  index: string | null;
}

/** One transaction's rows, and the capture cursor it moves (capture only). */
export interface BareTransaction {
  rows: BareRow[];
  cursor?: { tenant: string; source: string; session: string; path: string; offset: number; position: number; chunk: number };
}

/** A fresh store of the current schema in `dir`, opened bare with the store's pragmas. */
export function bareStore(dir: string): Database {
  openSqliteStore(dir).close();
  const db = new Database(join(dir, DB_FILE), { strict: true });
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA synchronous = FULL");
  db.run("PRAGMA secure_delete = ON");
  return db;
}

/** Writes the transactions one BEGIN IMMEDIATE each and returns the milliseconds it took (closing the database after). */
export function bareWrite(db: Database, txs: BareTransaction[]): number {
  try {
    const tape = db.query(
      `INSERT INTO tape (tenant, kind, ts, subject, idem_key, op_hash, content_hash, bytes, text, data, checksum, sclass)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const words = db.query("INSERT INTO words (rowid, body, tenant) VALUES (?, ?, ?)");
    const session = db.query(
      `INSERT INTO sessions (tenant, name, turns, first_lsn, last_lsn, bytes) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant, name) DO UPDATE SET turns = turns + excluded.turns, last_lsn = excluded.last_lsn, bytes = bytes + excluded.bytes`,
    );
    const cursor = db.query(
      `INSERT INTO capture_cursors (tenant, source, session, path, offset, position, chunk, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant, source) DO UPDATE SET path = excluded.path, offset = excluded.offset,
         position = excluded.position, chunk = excluded.chunk, updated = excluded.updated`,
    );
    const tokens = new Map<string, string>();
    for (const tx of txs) for (const r of tx.rows) if (!tokens.has(r.tenant)) tokens.set(r.tenant, tenantToken(r.tenant));
    const t0 = performance.now();
    for (const tx of txs) {
      db.transaction(() => {
        let first = 0;
        let last = 0;
        let bytes = 0;
        for (const r of tx.rows) {
          const lsn = Number(
            tape.run(r.tenant, r.kind, r.ts, r.subject, r.idem_key, r.op_hash, r.content_hash, r.bytes, r.text, r.data, r.checksum, r.sclass).lastInsertRowid,
          );
          if (r.index !== null) words.run(lsn, r.index, tokens.get(r.tenant)!);
          if (first === 0) first = lsn;
          last = lsn;
          bytes += r.bytes;
        }
        const head = tx.rows[0];
        if (head?.kind === "turn" && head.subject !== null) session.run(head.tenant, head.subject, tx.rows.length, first, last, bytes);
        const c = tx.cursor;
        if (c) cursor.run(c.tenant, c.source, c.session, c.path, c.offset, c.position, c.chunk, Date.now());
      }).immediate();
    }
    return performance.now() - t0;
  } finally {
    db.close();
  }
}

/**
 * A captured store's turns as bare transactions: its tape rows in LSN order,
 * one transaction per commit (a commit's rows share its timestamp; two
 * commits in the same millisecond become one, which only favours the
 * reference), each moving the store's capture cursor of its session.
 */
export function capturedTransactions(dataDir: string): BareTransaction[] {
  const db = new Database(join(dataDir, DB_FILE), { readonly: true, strict: true });
  try {
    const rows = db
      .query(
        `SELECT tenant, kind, ts, subject, idem_key, op_hash, content_hash, bytes, text, data, checksum, sclass
         FROM tape WHERE kind = 'turn' ORDER BY lsn`,
      )
      .all() as Omit<BareRow, "index">[];
    const cursors = db.query("SELECT tenant, source, session, path, offset, position, chunk FROM capture_cursors").all() as NonNullable<
      BareTransaction["cursor"]
    >[];
    const txs: BareTransaction[] = [];
    for (const r of rows) {
      const row: BareRow = { ...r, index: r.text === null ? null : indexText(r.text) };
      const tx = txs[txs.length - 1];
      if (tx && tx.rows[0]!.ts === r.ts && tx.rows[0]!.subject === r.subject) tx.rows.push(row);
      else {
        const cursor = cursors.find((c) => c.tenant === r.tenant && c.session === r.subject);
        txs.push({ rows: [row], ...(cursor ? { cursor } : {}) });
      }
    }
    return txs;
  } finally {
    db.close();
  }
}
