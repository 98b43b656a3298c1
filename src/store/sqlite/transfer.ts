/** export and import of the tape as JSONL records (DESIGN.md 6.3). */
import type { Database } from "bun:sqlite";
import { ZeroDbError } from "../../errors.ts";
import { parseInput } from "../../schema/parse.ts";
import { type TapeRecord, tapeRecordSchema } from "../../schema/tape.ts";
import { turnClass } from "../../search/classify.ts";
import { contentHash, idemDigest } from "../hashes.ts";
import { insertRow } from "./_tape.ts";
import { lsnRanges } from "../ranges.ts";
import { type ForgetData, hiddenBy } from "./forget-record.ts";
import { applyForget, sameAsStored } from "./increment.ts";
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

/** The text a link is found by: its title, note and URL. */
export function linkText(link: { url: string; title?: string | null; note?: string | null }): string {
  return [link.title, link.note, link.url].filter((s) => s).join("\n");
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
    for await (const raw of records) {
      line++;
      const rec = parseInput(tapeRecordSchema(raw), raw, `line ${line}`);
      if (rec.lsn <= last) throw new ZeroDbError("invalid_input", `line ${line}: lsn ${rec.lsn} is not greater than ${last}`, { field: `line ${line}.lsn` });
      last = rec.lsn;
      // A restore's checks of the record against its file's header (restore-check.ts).
      opts.check?.(rec);
      if (rec.lsn <= base) {
        sameAsStored(db, rec, { base, at: `line ${line}` });
        skipped++;
        continue;
      }
      if (rec.lsn <= used) throw new ZeroDbError("conflict", `line ${line}: lsn ${rec.lsn} was already used in this store`, { field: `line ${line}.lsn` });
      checkPayload(rec, `line ${line}`);
      if (base > 0 && rec.kind === "forget" && !("forgotten_by" in rec)) purged += applyForget(db, rec, { base, at: `line ${line}` });
      restore(db, rec, `line ${line}`);
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
  if (orphan) throw new ZeroDbError("invalid_input", `record ${orphan.lsn}: forgotten_by names no forget of its tenant`, { field: "forgotten_by" });
}

function restore(db: Database, rec: TapeRecord, at: string): void {
  const common = {
    lsn: rec.lsn,
    tenant: rec.tenant,
    ts: Date.parse(rec.ts),
    idemKey: rec.idem_key ?? null,
    opHash: rec.op_hash ? Buffer.from(rec.op_hash, "hex") : null,
  };
  if ("forgotten_by" in rec) {
    // An older export's key and op_hash become the digest alone (issue 14 item 4).
    const digest = rec.idem_digest ? Buffer.from(rec.idem_digest, "hex") : rec.idem_key ? idemDigest(rec.tenant, rec.idem_key) : null;
    insertRow(db, {
      ...common,
      kind: rec.kind,
      idemKey: null,
      idemDigest: digest,
      opHash: null,
      subject: null,
      contentHash: null,
      bytes: 0,
      text: null,
      data: null,
    });
    db.query("UPDATE tape SET forgotten_by = ? WHERE lsn = ?").run(rec.forgotten_by, rec.lsn);
    return;
  }
  switch (rec.kind) {
    case "turn": {
      const bytes = Buffer.byteLength(rec.content, "utf8");
      const meta = Object.keys(rec.meta).length > 0 ? rec.meta : undefined;
      insertRow(db, {
        ...common,
        kind: "turn",
        subject: rec.session,
        contentHash: contentHash(rec.content),
        bytes,
        text: rec.content,
        data: JSON.stringify(meta ? { role: rec.role, meta } : { role: rec.role }),
        sclass: turnClass(rec.role, meta),
      });
      db.query(
        `INSERT INTO sessions (tenant, name, turns, first_lsn, last_lsn, bytes) VALUES (?, ?, 1, ?, ?, ?)
         ON CONFLICT (tenant, name) DO UPDATE SET turns = turns + 1, last_lsn = excluded.last_lsn, bytes = bytes + excluded.bytes`,
      ).run(rec.tenant, rec.session, rec.lsn, rec.lsn, bytes);
      return;
    }
    case "fact": {
      const value = JSON.stringify(rec.value);
      insertRow(db, { ...common, kind: "fact", subject: rec.key, contentHash: null, bytes: Buffer.byteLength(value), text: null, data: value });
      db.query("INSERT INTO facts (tenant, key, lsn) VALUES (?, ?, ?) ON CONFLICT (tenant, key) DO UPDATE SET lsn = excluded.lsn").run(
        rec.tenant,
        rec.key,
        rec.lsn,
      );
      return;
    }
    case "forget": {
      // The records it hid come before it (their LSNs are lower) and name it.
      const hidden = hiddenBy(db, rec.lsn);
      const lsns = lsnRanges(hidden);
      // An older export's selector is dropped: the LSNs are what a replay needs.
      if (rec.lsns !== undefined && (rec.hidden !== hidden.length || JSON.stringify(rec.lsns) !== JSON.stringify(lsns))) {
        throw new ZeroDbError("invalid_input", `${at}: lsns do not match the records that name this forget`, { field: `${at}.lsns` });
      }
      const data: ForgetData = { hidden: hidden.length, lsns };
      insertRow(db, { ...common, kind: "forget", subject: null, contentHash: null, bytes: 0, text: null, data: JSON.stringify(data) });
      // A forgotten record keeps the forget's time, not its own (as forget.ts purge does).
      db.query("UPDATE tape SET ts = ? WHERE forgotten_by = ?").run(common.ts, rec.lsn);
      return;
    }
    case "link": {
      const data = { url: rec.url, title: rec.title, note: rec.note };
      const text = linkText(data);
      insertRow(db, { ...common, kind: "link", subject: null, contentHash: null, bytes: Buffer.byteLength(text), text, data: JSON.stringify(data) });
      return;
    }
    case "object":
      insertRow(db, {
        ...common,
        kind: "object",
        subject: rec.object,
        contentHash: null,
        bytes: rec.size,
        text: null,
        data: JSON.stringify({ size: rec.size, type: rec.type, name: rec.name }),
      });
      return;
  }
}
