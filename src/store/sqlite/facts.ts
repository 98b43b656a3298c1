/** fact_set, fact_get and fact_list on the SQLite tape (DESIGN.md section 5). */
import type { Database } from "bun:sqlite";
import { notFound } from "../../errors.ts";
import { PAGE_DEFAULT } from "../../limits.ts";
import type { FactGetInput, FactHistoryInput, FactListInput, FactSetInput } from "../../schema/ops.ts";
import type { Fact, FactHistoryResult, FactListResult, WriteResult } from "../../schema/results.ts";
import { pageTake } from "../history-page.ts";
import { BOOKKEEPING_FACTS, listsBookkeeping } from "../ranges.ts";
import { insertRow, isoTime, prefixRange, verifyRow, writeOnce } from "./_tape.ts";
import { opHash } from "../hashes.ts";
import { factPayload } from "../rows.ts";
import { sqlitePayload } from "./row-data.ts";

/** A fact's row as both the current and the as-of reads take it. */
export interface FactRow {
  key: string;
  lsn: number;
  subject: string | null;
  text: string | null;
  data: string;
  checksum: Uint8Array | null;
}

/** Sets a fact: a new tape row, and the current pointer moves to it. */
export function factSet(db: Database, tenant: string, input: FactSetInput): WriteResult {
  const op = input.idem_key ? opHash.fact(input.key, input.value) : null;
  return writeOnce(db, tenant, { key: input.idem_key, opHash: op }, () => {
    const lsn = insertRow(db, { tenant, ts: Date.now(), idemKey: input.idem_key ?? null, opHash: op, ...sqlitePayload(factPayload(input.key, input.value)) });
    db.query("INSERT INTO facts (tenant, key, lsn) VALUES (?, ?, ?) ON CONFLICT (tenant, key) DO UPDATE SET lsn = excluded.lsn").run(tenant, input.key, lsn);
    return lsn;
  });
}

/** The current value of a fact; a missing key and a foreign one look the same (I5). */
export function factGet(db: Database, tenant: string, input: FactGetInput): Fact {
  const row = db
    .query("SELECT f.key, f.lsn, t.subject, t.text, t.data, t.checksum FROM facts f JOIN tape t ON t.lsn = f.lsn WHERE f.tenant = ? AND f.key = ?")
    .get(tenant, input.key) as FactRow | null;
  if (!row) throw notFound(`no fact with key ${JSON.stringify(input.key)}`, "key");
  verifyRow(db, row);
  return { key: row.key, value: JSON.parse(row.data), lsn: row.lsn };
}

/** Current facts in key order. */
export function factList(db: Database, tenant: string, input: FactListInput): FactListResult {
  const limit = input.limit ?? PAGE_DEFAULT;
  const range = prefixRange("f.key", input.prefix);
  const hidden = listsBookkeeping(input.prefix) ? null : prefixRange("f.key", BOOKKEEPING_FACTS);
  const rows = db
    .query(
      `SELECT f.key, f.lsn, t.subject, t.text, t.data, t.checksum FROM facts f JOIN tape t ON t.lsn = f.lsn
       WHERE f.tenant = ? AND ${range.sql} AND f.key > ? ${hidden ? `AND NOT (${hidden.sql})` : ""} ORDER BY f.key LIMIT ?`,
    )
    .all(tenant, ...range.params, input.after ?? "", ...(hidden?.params ?? []), limit + 1) as FactRow[];
  const more = rows.length > limit;
  const facts = rows.slice(0, limit).map((r) => ({ key: r.key, value: JSON.parse(verifyRow(db, r).data), lsn: r.lsn }));
  return { facts, next: more ? facts[facts.length - 1]!.key : null };
}

/**
 * Every live value of a fact key, newest first, before an LSN: each fact_set
 * is a tape row the facts table's pointer moved past (DESIGN.md D4), and
 * stays until forgotten. Pages stop at `limit` values or READ_PAGE_MAX_BYTES
 * (a value may be 1 MiB); both statements run in one read transaction.
 */
export function factHistory(db: Database, tenant: string, input: FactHistoryInput): FactHistoryResult {
  const limit = input.limit ?? PAGE_DEFAULT;
  const before = input.before ?? Number.MAX_SAFE_INTEGER;
  return db
    .transaction((): FactHistoryResult => {
      const sizes = db
        .query(
          `SELECT lsn, bytes FROM tape WHERE tenant = ? AND kind = 'fact' AND subject = ? AND forgotten_by IS NULL AND lsn < ?
           ORDER BY lsn DESC LIMIT ?`,
        )
        .all(tenant, input.key, before, limit + 1) as { lsn: number; bytes: number }[];
      const take = pageTake(
        sizes.map((s) => s.bytes),
        limit,
      );
      if (take === 0) return { key: input.key, values: [], next: null };
      const rows = db
        .query(
          `SELECT lsn, ts, subject, text, data, checksum FROM tape
           WHERE tenant = ? AND kind = 'fact' AND subject = ? AND forgotten_by IS NULL AND lsn < ? AND lsn >= ?
           ORDER BY lsn DESC`,
        )
        .all(tenant, input.key, before, sizes[take - 1]!.lsn) as (FactRow & { ts: number })[];
      const values = rows.map((r) => ({ value: JSON.parse(verifyRow(db, r).data), lsn: r.lsn, ts: isoTime(r.ts) }));
      return { key: input.key, values, next: take < sizes.length ? values[values.length - 1]!.lsn : null };
    })
    .deferred();
}
