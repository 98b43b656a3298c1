/**
 * forget on PostgreSQL: a tape record that hides every matching record at or
 * below its own LSN (I8). The hidden rows keep their LSN, kind and the
 * forget's LSN; their content, subject, index entries, time and operation
 * hash are nulled in the same transaction, and a forgotten idempotency key is
 * kept only as its digest (I3). The forget record holds the count and the
 * hidden LSNs as ranges, never the selector (a session name says what was
 * forgotten), as the SQLite engine's does. What PostgreSQL itself keeps of
 * the old row versions (dead tuples until VACUUM FULL, WAL) is in docs/team-server.md.
 */
import type { ForgetInput, Selector } from "../../schema/ops.ts";
import type { ForgetResult } from "../../schema/results.ts";
import { prefixEnd } from "../ranges.ts";
import { type Q, idemDigest, insertRow, lockLsns } from "./_tape.ts";
import { dropUnreferenced } from "./blobs.ts";
import { forgetPayload } from "../rows.ts";

interface Match {
  lsn: number;
  kind: string;
  subject: string | null;
  idem_key: string | null;
}

/** The live rows of a tenant that a selector matches (FOR UPDATE inside a write). */
async function matches(tx: Q, tenant: string, sel: Selector): Promise<Match[]> {
  const prefixed = (kind: string, prefix: string) => {
    const end = prefixEnd(prefix);
    return tx`SELECT lsn, kind, subject, idem_key FROM tape WHERE tenant = ${tenant} AND forgotten_by IS NULL AND kind = ${kind}
      AND subject >= ${prefix} AND (${end}::text IS NULL OR subject < ${end})`;
  };
  const by = (kind: string, column: "subject" | "lsn", value: string | number) =>
    column === "subject"
      ? tx`SELECT lsn, kind, subject, idem_key FROM tape WHERE tenant = ${tenant} AND forgotten_by IS NULL AND kind = ${kind} AND subject = ${value}`
      : tx`SELECT lsn, kind, subject, idem_key FROM tape WHERE tenant = ${tenant} AND forgotten_by IS NULL AND kind = ${kind} AND lsn = ${value}`;
  let rows: Record<string, unknown>[] = [];
  if (sel.session !== undefined) rows = await by("turn", "subject", sel.session);
  else if (sel.session_prefix !== undefined) rows = await prefixed("turn", sel.session_prefix);
  else if (sel.turn !== undefined) rows = await by("turn", "lsn", sel.turn);
  else if (sel.fact !== undefined) rows = await by("fact", "subject", sel.fact);
  else if (sel.fact_prefix !== undefined) rows = await prefixed("fact", sel.fact_prefix);
  else if (sel.object !== undefined) rows = await by("object", "subject", sel.object);
  else if (sel.link !== undefined) rows = await by("link", "lsn", sel.link);
  else if (sel.before !== undefined)
    rows = await tx`SELECT lsn, kind, subject, idem_key FROM tape WHERE tenant = ${tenant} AND forgotten_by IS NULL
      AND kind IN ('turn', 'fact', 'link', 'object') AND ts < ${Date.parse(sel.before)}`;
  else if (sel.records !== undefined) {
    // Ranges of the primary key, one look-up each; overlapping ranges must not list a row twice.
    const seen = new Map<number, Record<string, unknown>>();
    for (const [a, b] of sel.records) {
      const part = await tx`SELECT lsn, kind, subject, idem_key FROM tape WHERE tenant = ${tenant} AND forgotten_by IS NULL
        AND kind IN ('turn', 'fact', 'link', 'object') AND lsn BETWEEN ${a} AND ${b}`;
      for (const r of part) seen.set(Number(r.lsn), r);
    }
    rows = [...seen.values()];
  }
  return rows.map((r) => ({ lsn: Number(r.lsn), kind: r.kind as string, subject: r.subject as string | null, idem_key: r.idem_key as string | null }));
}

/** Runs a forget (or counts it, with dry_run: nothing written, no LSN taken). */
export async function forget(sql: Q, tenant: string, input: ForgetInput): Promise<ForgetResult> {
  if (input.dry_run) {
    const found = await sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", (tx) => matches(tx, tenant, input.selector));
    return { lsn: null, hidden: found.length, dry_run: true };
  }
  return sql.begin(async (tx): Promise<ForgetResult> => {
    // The LSN lock first: every match found after it is at or below this forget's LSN (I8).
    const lsns = await lockLsns(tx);
    const found = (await matches(tx, tenant, input.selector)).sort((a, b) => a.lsn - b.lsn);
    // A forget that matches nothing writes nothing and takes no LSN (issue 17), as on SQLite.
    if (found.length === 0) return { lsn: null, hidden: 0, dry_run: false };
    const lsn = lsns.next();
    const ts = Date.now();
    const sorted = found.map((m) => m.lsn);
    await insertRow(tx, lsn, { tenant, ts, idemKey: null, opHash: null, ...forgetPayload(sorted) });
    for (const m of found) {
      await tx`UPDATE tape SET ts = ${ts}, subject = NULL, idem_key = NULL, idem_digest = ${m.idem_key === null ? null : idemDigest(tenant, m.idem_key)},
        op_hash = NULL, content_hash = NULL, bytes = 0, text = NULL, data = NULL, words = NULL, sclass = 0, forgotten_by = ${lsn}
        WHERE lsn = ${m.lsn}`;
    }
    await recomputeDerived(tx, tenant, found);
    // A blob whose last ref (of any tenant) went is deleted, chunks and all, in the same transaction.
    await dropUnreferenced(tx, [...new Set(found.filter((m) => m.kind === "object").map((m) => m.subject!))]);
    await lsns.release();
    return { lsn, hidden: found.length, dry_run: false };
  });
}

/** Brings sessions and facts back in line with the live tape rows. */
async function recomputeDerived(tx: Q, tenant: string, found: Match[]): Promise<void> {
  for (const name of new Set(found.filter((m) => m.kind === "turn").map((m) => m.subject!))) {
    const [agg] = await tx`SELECT count(*) AS turns, min(lsn) AS first_lsn, max(lsn) AS last_lsn, coalesce(sum(bytes), 0) AS bytes
      FROM tape WHERE tenant = ${tenant} AND kind = 'turn' AND subject = ${name} AND forgotten_by IS NULL`;
    if (Number(agg.turns) === 0) await tx`DELETE FROM sessions WHERE tenant = ${tenant} AND name = ${name}`;
    else
      await tx`UPDATE sessions SET turns = ${agg.turns}, first_lsn = ${agg.first_lsn}, last_lsn = ${agg.last_lsn}, bytes = ${agg.bytes}
        WHERE tenant = ${tenant} AND name = ${name}`;
  }
  for (const key of new Set(found.filter((m) => m.kind === "fact").map((m) => m.subject!))) {
    const [live] = await tx`SELECT max(lsn) AS lsn FROM tape WHERE tenant = ${tenant} AND kind = 'fact' AND subject = ${key} AND forgotten_by IS NULL`;
    if (live.lsn === null) await tx`DELETE FROM facts WHERE tenant = ${tenant} AND key = ${key}`;
    else await tx`UPDATE facts SET lsn = ${live.lsn} WHERE tenant = ${tenant} AND key = ${key}`;
  }
}
