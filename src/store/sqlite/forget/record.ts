/**
 * What a forget leaves on the tape (issue 14 item 4): that something was
 * forgotten at an LSN, how much, and which LSNs it hid, which is what an
 * import or another engine (DESIGN.md 12) needs to replay it. Never the
 * selector: a session name or fact key says what was forgotten.
 */
import type { Database } from "bun:sqlite";
import { idemDigest } from "../../hashes.ts";
import { forgetData } from "../../rows.ts";
import { rowChecksum } from "../_tape.ts";

/** A forget record's data: the count and the hidden LSNs as inclusive ranges. */
/** The LSNs a forget hid, read from the rows it marked, sorted. */
export function hiddenBy(db: Database, forgetLsn: number): number[] {
  return (db.query("SELECT lsn FROM tape WHERE forgotten_by = ? ORDER BY lsn").all(forgetLsn) as { lsn: number }[]).map((r) => r.lsn);
}

/**
 * Migration 5's step: scrubs what earlier releases left of forgotten rows
 * (the operation hash, the idempotency key, the time) and rewrites every
 * forget record's selector into the hidden LSNs. Its rows are rewritten under
 * `secure_delete`, and the WAL is truncated on the first open after it
 * (`purge_pending`), so the old bytes leave both files (I9).
 */
export function scrubForgotten(db: Database): void {
  const rows = db
    .query(
      `SELECT t.lsn, t.tenant, t.idem_key, f.ts FROM tape t JOIN tape f ON f.lsn = t.forgotten_by
       WHERE t.forgotten_by IS NOT NULL AND (t.idem_key IS NOT NULL OR t.op_hash IS NOT NULL OR t.ts != f.ts)`,
    )
    .all() as { lsn: number; tenant: string; idem_key: string | null; ts: number }[];
  const scrub = db.query(
    `UPDATE tape SET ts = ?, idem_key = NULL, idem_digest = ?, op_hash = NULL, subject = NULL, content_hash = NULL, bytes = 0,
       text = NULL, data = NULL, checksum = NULL, sclass = 0 WHERE lsn = ?`,
  );
  for (const r of rows) scrub.run(r.ts, r.idem_key === null ? null : idemDigest(r.tenant, r.idem_key), r.lsn);
  const forgets = db.query("SELECT lsn, data FROM tape WHERE kind = 'forget' ORDER BY lsn").all() as { lsn: number; data: string | null }[];
  // A store with records always has its id (identity.ts writes it on the first open).
  const storeId = (db.query("SELECT value FROM meta WHERE key = 'store_id'").get() as { value: string } | null)?.value;
  let rewritten = 0;
  if (storeId !== undefined) {
    const set = db.query("UPDATE tape SET data = ?, checksum = ? WHERE lsn = ?");
    for (const f of forgets) {
      if (f.data !== null && !("selector" in JSON.parse(f.data))) continue;
      const data = JSON.stringify(forgetData(hiddenBy(db, f.lsn)));
      set.run(data, rowChecksum(storeId, { subject: null, text: null, data }), f.lsn);
      rewritten++;
    }
  }
  if (rows.length + rewritten > 0) db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('purge_pending', '1')").run();
}
