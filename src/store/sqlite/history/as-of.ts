/**
 * The reads of DESIGN.md section 17 on SQLite: sessions and facts as they were
 * at an LSN, computed from the live tape rows at or below it (the sessions
 * and facts tables hold only now). Forgotten rows are never read: forget is
 * stronger than history (I8, I9).
 */
import type { Database } from "bun:sqlite";
import { notFound } from "../../../errors.ts";
import { PAGE_DEFAULT } from "../../../limits.ts";
import type { FactGetInput, FactListInput, SessionsInput } from "../../../schema/ops.ts";
import type { Fact, FactListResult, SessionsResult } from "../../../schema/results.ts";
import type { AsOfLookup } from "../../as-of.ts";
import { BOOKKEEPING_FACTS, listsBookkeeping } from "../../ranges.ts";
import { prefixRange, verifyRow } from "../_tape.ts";
import type { FactRow } from "../facts.ts";

/** How a tenant's times become LSNs on this store. */
export function asOfLookup(db: Database, tenant: string): AsOfLookup {
  return {
    lastLsn: () => (db.query("SELECT coalesce(max(lsn), 0) AS n FROM tape").get() as { n: number }).n,
    atTime: (ms) => {
      // tape_ts (tenant, ts) WHERE forgotten_by IS NULL answers both look-ups from the index.
      if (db.query("SELECT 1 FROM tape WHERE tenant = ? AND ts > ? AND forgotten_by IS NULL LIMIT 1").get(tenant, ms) === null) return undefined;
      const row = db.query("SELECT lsn FROM tape WHERE tenant = ? AND ts <= ? AND forgotten_by IS NULL ORDER BY ts DESC, lsn DESC LIMIT 1").get(tenant, ms) as {
        lsn: number;
      } | null;
      return row?.lsn ?? 0;
    },
  };
}

/** Sessions that had live turns at or below `upto`, with their counts then. */
export function sessionsAt(db: Database, tenant: string, input: SessionsInput, upto: number): SessionsResult {
  const limit = input.limit ?? PAGE_DEFAULT;
  const range = prefixRange("subject", input.prefix);
  const rows = db
    .query(
      `SELECT subject AS name, count(*) AS turns, min(lsn) AS first_lsn, max(lsn) AS last_lsn, coalesce(sum(bytes), 0) AS bytes FROM tape
       WHERE tenant = ? AND kind = 'turn' AND forgotten_by IS NULL AND lsn <= ? AND ${range.sql} AND subject > ?
       GROUP BY subject ORDER BY subject LIMIT ?`,
    )
    .all(tenant, upto, ...range.params, input.after ?? "", limit + 1) as SessionsResult["sessions"];
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  return { sessions: page, next: more ? page[page.length - 1]!.name : null };
}

/** The value a fact had at `upto`: its last live value at or below it. */
export function factGetAt(db: Database, tenant: string, input: FactGetInput, upto: number): Fact {
  const row = db
    .query(
      `SELECT subject AS key, lsn, subject, text, data, checksum FROM tape
       WHERE tenant = ? AND kind = 'fact' AND subject = ? AND forgotten_by IS NULL AND lsn <= ? ORDER BY lsn DESC LIMIT 1`,
    )
    .get(tenant, input.key, upto) as FactRow | null;
  if (!row) throw notFound(`no fact with key ${JSON.stringify(input.key)} at LSN ${upto}`, "key");
  verifyRow(db, row);
  return { key: row.key, value: JSON.parse(row.data), lsn: row.lsn };
}

/** Facts as they were at `upto`, in key order: each key's last live value at or below it. */
export function factListAt(db: Database, tenant: string, input: FactListInput, upto: number): FactListResult {
  const limit = input.limit ?? PAGE_DEFAULT;
  const range = prefixRange("subject", input.prefix);
  const hidden = listsBookkeeping(input.prefix) ? null : prefixRange("subject", BOOKKEEPING_FACTS);
  // SQLite gives the bare columns of the row holding max(lsn) (https://sqlite.org/lang_select.html#bareagg).
  const rows = db
    .query(
      `SELECT subject AS key, max(lsn) AS lsn, subject, text, data, checksum FROM tape
       WHERE tenant = ? AND kind = 'fact' AND forgotten_by IS NULL AND lsn <= ? AND ${range.sql} AND subject > ?
         ${hidden ? `AND NOT (${hidden.sql})` : ""}
       GROUP BY subject ORDER BY subject LIMIT ?`,
    )
    .all(tenant, upto, ...range.params, input.after ?? "", ...(hidden?.params ?? []), limit + 1) as FactRow[];
  const more = rows.length > limit;
  const facts = rows.slice(0, limit).map((r) => ({ key: r.key, value: JSON.parse(verifyRow(db, r).data), lsn: r.lsn }));
  return { facts, next: more ? facts[facts.length - 1]!.key : null };
}
