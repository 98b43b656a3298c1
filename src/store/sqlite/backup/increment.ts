/**
 * Importing an increment (`export --after LSN`) into the store it came from,
 * or a restore of it (issue 20). Records at or below the store's last LSN
 * must be the store's own (they are skipped, so a repeated import writes
 * nothing twice); a forget in the increment purges the rows it hid that the
 * store already holds, exactly as the live forget did at the source (I8, I9).
 */
import type { Database } from "bun:sqlite";
import { ZeroDbError } from "../../../errors.ts";
import type { TapeRecord } from "../../../schema/tape.ts";
import { canonicalJson } from "../../../util/json.ts";
import { purge, recomputeDerived } from "../forget/forget.ts";
import { type Row, toRecord } from "../row-record.ts";

const ROW_SQL = `SELECT lsn, tenant, kind, ts, subject, idem_key, idem_digest, op_hash, text, data, checksum, forgotten_by FROM tape WHERE lsn = ?`;

/**
 * Checks that a record at or below the store's last LSN is the store's own
 * row: the same record, or the store's live row that the increment shows
 * forgotten by a forget the increment itself carries (later than `base`).
 */
export function sameAsStored(db: Database, rec: TapeRecord, opts: { base: number; at: string }): void {
  const row = db.query(ROW_SQL).get(rec.lsn) as Row | null;
  const differ = () =>
    new ZeroDbError("conflict", `${opts.at}: record ${rec.lsn} differs from this store's record ${rec.lsn}: the file does not continue this store`, {
      field: `${opts.at}.lsn`,
    });
  if (!row || row.tenant !== rec.tenant || row.kind !== rec.kind) throw differ();
  if ("forgotten_by" in rec && row.forgotten_by === null && rec.forgotten_by > opts.base) return;
  const stored = toRecord(db, row);
  if (canonicalJson(stored) !== canonicalJson(rec)) throw differ();
}

/**
 * Before an increment's forget record is written: purges the rows it hid
 * that the store holds live (LSN at or below `base`), as the forget did at
 * the source. Returns how many rows it purged.
 */
export function applyForget(db: Database, rec: TapeRecord & { kind: "forget" }, opts: { base: number; at: string }): number {
  if (rec.lsns === undefined) {
    throw new ZeroDbError("invalid_input", `${opts.at}: a forget imported into a non-empty store must list the LSNs it hid`, { field: `${opts.at}.lsns` });
  }
  const found: { lsn: number; kind: string; subject: string | null; idem_key: string | null; text: string | null }[] = [];
  for (const [a, b] of rec.lsns) {
    for (let lsn = a; lsn <= Math.min(b, opts.base); lsn++) {
      const row = db.query(ROW_SQL).get(lsn) as Row | null;
      if (!row || row.tenant !== rec.tenant || row.kind === "forget") {
        throw new ZeroDbError("invalid_input", `${opts.at}: the forget hides record ${lsn}, which this store does not hold for its tenant`, {
          field: `${opts.at}.lsns`,
        });
      }
      if (row.forgotten_by === null) found.push({ lsn, kind: row.kind, subject: row.subject, idem_key: row.idem_key, text: row.text });
    }
  }
  if (found.length === 0) return 0;
  purge(db, rec.tenant, found, { lsn: rec.lsn, ts: Date.parse(rec.ts) });
  recomputeDerived(db, rec.tenant, found);
  return found.length;
}
