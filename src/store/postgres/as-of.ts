/**
 * The reads of DESIGN.md section 17 on PostgreSQL: sessions and facts as they
 * were at an LSN, from the live tape rows at or below it (the sessions and
 * facts tables hold only now). Forgotten rows are never read (I8, I9).
 */
import { notFound } from "../../errors.ts";
import { PAGE_DEFAULT } from "../../limits.ts";
import type { FactGetInput, FactListInput, SessionsInput } from "../../schema/ops.ts";
import type { Fact, FactListResult, SessionsResult } from "../../schema/results.ts";
import type { AsOfLookup } from "../as-of.ts";
import { BOOKKEEPING_FACTS, listsBookkeeping, prefixEnd } from "../ranges.ts";
import type { Q } from "./_tape.ts";
import { sessionsPage } from "./turns.ts";

/** How a tenant's times become LSNs on this store. */
export function asOfLookup(sql: Q, tenant: string): AsOfLookup {
  return {
    lastLsn: async () => Number((await sql`SELECT last FROM lsn_counter WHERE id = 1`)[0].last),
    atTime: async (ms) => {
      const [later] = await sql`SELECT 1 FROM tape WHERE tenant = ${tenant} AND ts > ${ms} AND forgotten_by IS NULL LIMIT 1`;
      if (!later) return undefined;
      const [row] = await sql`SELECT lsn FROM tape WHERE tenant = ${tenant} AND ts <= ${ms} AND forgotten_by IS NULL ORDER BY ts DESC, lsn DESC LIMIT 1`;
      return row ? Number(row.lsn) : 0;
    },
  };
}

/** Sessions that had live turns at or below `upto`, with their counts then (byte order of names). */
export async function sessionsAt(sql: Q, tenant: string, input: SessionsInput, upto: number): Promise<SessionsResult> {
  const limit = input.limit ?? PAGE_DEFAULT;
  const prefix = input.prefix ?? "";
  const end = prefix ? prefixEnd(prefix) : null;
  const rows = await sql`SELECT subject AS name, count(*) AS turns, min(lsn) AS first_lsn, max(lsn) AS last_lsn, coalesce(sum(bytes), 0) AS bytes
    FROM tape WHERE tenant = ${tenant} AND kind = 'turn' AND forgotten_by IS NULL AND lsn <= ${upto}
      AND subject >= ${prefix} AND (${end}::text IS NULL OR subject < ${end}) AND subject > ${input.after ?? ""}
    GROUP BY subject ORDER BY subject LIMIT ${limit + 1}`;
  return sessionsPage(rows, limit);
}

/** The value a fact had at `upto`: its last live value at or below it. */
export async function factGetAt(sql: Q, tenant: string, input: FactGetInput, upto: number): Promise<Fact> {
  const [row] = await sql`SELECT subject AS key, lsn, data FROM tape
    WHERE tenant = ${tenant} AND kind = 'fact' AND subject = ${input.key} AND forgotten_by IS NULL AND lsn <= ${upto} ORDER BY lsn DESC LIMIT 1`;
  if (!row) throw notFound(`no fact with key ${JSON.stringify(input.key)} at LSN ${upto}`, "key");
  return { key: row.key, value: row.data.value, lsn: Number(row.lsn) };
}

/** Facts as they were at `upto`, in key order (bytes): each key's last live value at or below it. */
export async function factListAt(sql: Q, tenant: string, input: FactListInput, upto: number): Promise<FactListResult> {
  const limit = input.limit ?? PAGE_DEFAULT;
  const prefix = input.prefix ?? "";
  const end = prefix ? prefixEnd(prefix) : null;
  const hideFrom = listsBookkeeping(input.prefix) ? "" : BOOKKEEPING_FACTS;
  const hideTo = listsBookkeeping(input.prefix) ? "" : prefixEnd(BOOKKEEPING_FACTS)!;
  // DISTINCT ON keeps each key's first row in (subject, lsn DESC) order: its last value at or below upto.
  const rows = await sql`SELECT DISTINCT ON (subject) subject AS key, lsn, data FROM tape
    WHERE tenant = ${tenant} AND kind = 'fact' AND forgotten_by IS NULL AND lsn <= ${upto}
      AND subject >= ${prefix} AND (${end}::text IS NULL OR subject < ${end}) AND subject > ${input.after ?? ""}
      AND NOT (subject >= ${hideFrom} AND subject < ${hideTo})
    ORDER BY subject, lsn DESC LIMIT ${limit + 1}`;
  const facts = rows
    .slice(0, limit)
    .map((r: { key: string; lsn: string; data: { value: unknown } }) => ({ key: r.key, value: r.data.value, lsn: Number(r.lsn) }));
  return { facts, next: rows.length > limit ? facts[facts.length - 1]!.key : null };
}
