/**
 * forget: a tape record that hides every matching record at or below its own
 * LSN (I8) and purges their bytes from the database, the WAL and the FTS
 * index (I9). Neither the record nor the hidden rows keep anything that says
 * what was forgotten (issue 14 item 4): see record.ts.
 */
import type { Database } from "bun:sqlite";
import type { ForgetInput, Selector } from "../../../schema/ops.ts";
import type { ForgetResult } from "../../../schema/results.ts";
import { idemDigest } from "../../hashes.ts";
import { insertRow, prefixRange } from "../_tape.ts";
import { forgetPayload } from "../../rows.ts";
import { sqlitePayload } from "../row-data.ts";
import { BUSY_TIMEOUT_MS } from "../open.ts";
import { secureDeletes, unindexRow } from "../search/word-index.ts";

interface Match {
  lsn: number;
  kind: string;
  subject: string | null;
  idem_key: string | null;
  text: string | null;
}

/** What the objects layer must re-check after a forget: digests whose refs went. */
export interface ForgetOutcome {
  result: ForgetResult;
  digests: string[];
}

/** The live rows of a tenant that a selector matches. */
function matches(db: Database, tenant: string, sel: Selector): Match[] {
  const base = "SELECT lsn, kind, subject, idem_key, text FROM tape WHERE tenant = ? AND forgotten_by IS NULL AND ";
  const q = (sql: string, ...params: (string | number)[]) => db.query(base + sql).all(tenant, ...params) as Match[];
  if (sel.session !== undefined) return q("kind = 'turn' AND subject = ?", sel.session);
  if (sel.session_prefix !== undefined) {
    const r = prefixRange("subject", sel.session_prefix);
    return q(`kind = 'turn' AND ${r.sql}`, ...r.params);
  }
  if (sel.turn !== undefined) return q("kind = 'turn' AND lsn = ?", sel.turn);
  if (sel.fact !== undefined) return q("kind = 'fact' AND subject = ?", sel.fact);
  if (sel.fact_prefix !== undefined) {
    const r = prefixRange("subject", sel.fact_prefix);
    return q(`kind = 'fact' AND ${r.sql}`, ...r.params);
  }
  if (sel.object !== undefined) return q("kind = 'object' AND subject = ?", sel.object);
  if (sel.link !== undefined) return q("kind = 'link' AND lsn = ?", sel.link);
  if (sel.before !== undefined) return q("kind IN ('turn', 'fact', 'link', 'object') AND ts < ?", Date.parse(sel.before));
  // Ranges of the primary key, one look-up each; overlapping ranges must not list a row twice.
  if (sel.records !== undefined) {
    const seen = new Map<number, Match>();
    for (const [a, b] of sel.records) for (const m of q("kind IN ('turn', 'fact', 'link', 'object') AND lsn BETWEEN ? AND ?", a, b)) seen.set(m.lsn, m);
    return [...seen.values()];
  }
  return [];
}

/**
 * Runs a forget (or counts it, with dry_run). A forget that matches nothing
 * writes nothing and answers `lsn: null` (issue 17, item 10): a record
 * hiding no LSN would change nothing but the next LSN and the export.
 */
export function forget(db: Database, tenant: string, input: ForgetInput): ForgetOutcome {
  if (input.dry_run) {
    return { result: { lsn: null, hidden: matches(db, tenant, input.selector).length, dry_run: true }, digests: [] };
  }
  finishPendingPurge(db);
  const outcome = db
    .transaction((): ForgetOutcome => {
      // Matched inside the write transaction, so no record can appear between the count and the decision to write.
      const found = matches(db, tenant, input.selector).sort((a, b) => a.lsn - b.lsn);
      if (found.length === 0) return { result: { lsn: null, hidden: 0, dry_run: false }, digests: [] };
      const ts = Date.now();
      const lsn = insertRow(db, { tenant, ts, idemKey: null, opHash: null, ...sqlitePayload(forgetPayload(found.map((m) => m.lsn))) });
      purge(db, tenant, found, { lsn, ts });
      recomputeDerived(db, tenant, found);
      const digests = [...new Set(found.filter((m) => m.kind === "object").map((m) => m.subject!))];
      return { result: { lsn, hidden: found.length, dry_run: false }, digests };
    })
    .immediate();
  if (outcome.result.hidden > 0) checkpoint(db);
  return outcome;
}

/**
 * Removes matched rows' bytes: from the word index first (it needs the old
 * text), then the tape. What stays is the LSN, the kind and the forget's LSN;
 * the time becomes the forget's; the idempotency key becomes its digest (the
 * key stays reserved, I3) and the operation hash goes, since a hash of short
 * content is the content after a few guesses.
 */
export function purge(db: Database, tenant: string, found: Match[], by: { lsn: number; ts: number }): void {
  const blank = db.query(
    `UPDATE tape SET ts = ?, subject = NULL, idem_key = NULL, idem_digest = ?, op_hash = NULL, content_hash = NULL, bytes = 0,
       text = NULL, data = NULL, checksum = NULL, sclass = 0, forgotten_by = ?
     WHERE lsn = ?`,
  );
  // I9: the index's deletes remove the rows' entries from its pages at once (FTS5 secure-delete), not at a later
  // merge. On for these deletes only: it makes every insert dearer (migration 006). In this transaction, so a
  // rollback leaves it as it was.
  const unindexing = found.some((m) => m.text !== null);
  if (unindexing) secureDeletes(db, true);
  for (const m of found) {
    if (m.text !== null) unindexRow(db, { lsn: m.lsn, tenant, text: m.text });
    blank.run(by.ts, m.idem_key === null ? null : idemDigest(tenant, m.idem_key), by.lsn, m.lsn);
  }
  if (unindexing) secureDeletes(db, false);
}

/** Brings sessions and facts back in line with the live tape rows. */
export function recomputeDerived(db: Database, tenant: string, found: Match[]): void {
  const sessionNames = new Set(found.filter((m) => m.kind === "turn").map((m) => m.subject!));
  for (const name of sessionNames) {
    const agg = db
      .query(
        `SELECT count(*) AS turns, min(lsn) AS first_lsn, max(lsn) AS last_lsn, coalesce(sum(bytes), 0) AS bytes
         FROM tape WHERE tenant = ? AND kind = 'turn' AND subject = ? AND forgotten_by IS NULL`,
      )
      .get(tenant, name) as { turns: number; first_lsn: number; last_lsn: number; bytes: number };
    if (agg.turns === 0) db.query("DELETE FROM sessions WHERE tenant = ? AND name = ?").run(tenant, name);
    else
      db.query("UPDATE sessions SET turns = ?, first_lsn = ?, last_lsn = ?, bytes = ? WHERE tenant = ? AND name = ?").run(
        agg.turns,
        agg.first_lsn,
        agg.last_lsn,
        agg.bytes,
        tenant,
        name,
      );
  }
  const factKeys = new Set(found.filter((m) => m.kind === "fact").map((m) => m.subject!));
  for (const key of factKeys) {
    const live = db.query("SELECT max(lsn) AS lsn FROM tape WHERE tenant = ? AND kind = 'fact' AND subject = ? AND forgotten_by IS NULL").get(tenant, key) as {
      lsn: number | null;
    };
    if (live.lsn === null) db.query("DELETE FROM facts WHERE tenant = ? AND key = ?").run(tenant, key);
    else db.query("UPDATE facts SET lsn = ? WHERE tenant = ? AND key = ?").run(live.lsn, tenant, key);
  }
}

/**
 * Copies the WAL into the database and truncates it, so the purged bytes
 * leave the WAL file too (https://sqlite.org/pragma.html#pragma_wal_checkpoint).
 * A TRUNCATE checkpoint holds the writer lock while it waits for other
 * processes' readers to leave the WAL; waiting there, even briefly in a loop,
 * starved writers into `busy` under load. So each attempt does not wait at
 * all (busy_timeout 0: it backfills, and truncates only if no reader is in the
 * WAL at that instant), and attempts repeat a few milliseconds apart. If
 * readers never let go within the budget, the store remembers that a purge is
 * pending and finishes it on its next open, forget or close.
 */
export function checkpoint(db: Database, budgetMs = 2000): boolean {
  let done = false;
  db.run("PRAGMA busy_timeout = 0");
  try {
    const deadline = Date.now() + budgetMs;
    for (;;) {
      try {
        done = (db.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number }).busy === 0;
      } catch {
        done = false;
      }
      if (done || Date.now() >= deadline) break;
      Bun.sleepSync(5);
    }
  } finally {
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
  // Best effort: the forget itself has committed and must not be reported as failed.
  try {
    if (done) db.query("DELETE FROM meta WHERE key = 'purge_pending'").run();
    else db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('purge_pending', '1')").run();
  } catch {}
  return done;
}

/** Retries a WAL truncation that an earlier forget could not finish (I9). */
export function finishPendingPurge(db: Database, budgetMs = 500): void {
  const pending = db.query("SELECT 1 FROM meta WHERE key = 'purge_pending'").get();
  if (pending) checkpoint(db, budgetMs);
}
