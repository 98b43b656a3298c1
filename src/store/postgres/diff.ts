/** diff on PostgreSQL (DESIGN.md section 17): what the live tape gained between two LSNs, in one snapshot. */
import { PAGE_DEFAULT } from "../../limits.ts";
import type { DiffInput } from "../../schema/ops.ts";
import type { DiffResult } from "../../schema/results.ts";
import { type TurnRow, sessionsOf } from "../diff.ts";
import { BOOKKEEPING_FACTS, listsBookkeeping, prefixEnd } from "../ranges.ts";
import { type Q, isoTime } from "./_tape.ts";

/** What was added with from < LSN ≤ to (the span diffSpan resolved). */
export function diff(sql: Q, tenant: string, input: DiffInput, span: { from: number; to: number }): Promise<DiffResult> {
  const limit = input.limit ?? PAGE_DEFAULT;
  const { from, to } = span;
  const prefix = input.prefix ?? "";
  const end = prefix ? prefixEnd(prefix) : null;
  const hideFrom = listsBookkeeping(input.prefix) ? "" : BOOKKEEPING_FACTS;
  const hideTo = listsBookkeeping(input.prefix) ? "" : prefixEnd(BOOKKEEPING_FACTS)!;
  return sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx): Promise<DiffResult> => {
    const turnRows = (
      await tx`SELECT subject AS name, lsn, bytes FROM tape
        WHERE tenant = ${tenant} AND kind = 'turn' AND forgotten_by IS NULL AND lsn > ${from} AND lsn <= ${to}
          AND subject >= ${prefix} AND (${end}::text IS NULL OR subject < ${end}) ORDER BY subject, lsn`
    ).map((r: { name: string; lsn: string; bytes: string }): TurnRow => ({ name: r.name, lsn: Number(r.lsn), bytes: Number(r.bytes) }));
    const { sessions, truncated: moreSessions } = sessionsOf(turnRows, limit);
    const keys: { key: string; sets: string }[] = await tx`SELECT subject AS key, count(*) AS sets FROM tape
      WHERE tenant = ${tenant} AND kind = 'fact' AND forgotten_by IS NULL AND lsn > ${from} AND lsn <= ${to}
        AND subject >= ${prefix} AND (${end}::text IS NULL OR subject < ${end}) AND NOT (subject >= ${hideFrom} AND subject < ${hideTo})
      GROUP BY subject ORDER BY subject LIMIT ${limit + 1}`;
    const value = async (key: string, at: number) => {
      const [row] = await tx`SELECT lsn, data FROM tape
        WHERE tenant = ${tenant} AND kind = 'fact' AND subject = ${key} AND forgotten_by IS NULL AND lsn <= ${at} ORDER BY lsn DESC LIMIT 1`;
      return row ? { value: row.data.value, lsn: Number(row.lsn) } : null;
    };
    const facts: DiffResult["facts"] = [];
    for (const k of keys.slice(0, limit)) facts.push({ key: k.key, sets: Number(k.sets), old: await value(k.key, from), new: (await value(k.key, to))! });
    const forgetRows: { lsn: string; ts: string; data: { hidden: number; lsns: [number, number][] } }[] =
      await tx`SELECT lsn, ts, data FROM tape WHERE tenant = ${tenant} AND kind = 'forget' AND lsn > ${from} AND lsn <= ${to} ORDER BY lsn`;
    const forgets: DiffResult["forgets"] = [];
    for (const f of forgetRows) {
      const kinds: { kind: string; n: string }[] = await tx`SELECT kind, count(*) AS n FROM tape WHERE forgotten_by = ${f.lsn} GROUP BY kind ORDER BY kind`;
      forgets.push({
        lsn: Number(f.lsn),
        ts: isoTime(f.ts),
        hidden: Number(f.data.hidden),
        kinds: Object.fromEntries(kinds.map((k) => [k.kind, Number(k.n)])),
        lsns: f.data.lsns.map(([a, b]) => [Number(a), Number(b)] as [number, number]),
      });
    }
    const [counts] = await tx`SELECT count(*) FILTER (WHERE kind = 'link') AS links, count(*) FILTER (WHERE kind = 'object') AS objects FROM tape
      WHERE tenant = ${tenant} AND kind IN ('link', 'object') AND forgotten_by IS NULL AND lsn > ${from} AND lsn <= ${to}`;
    return {
      from,
      to,
      sessions,
      facts,
      forgets,
      links: Number(counts.links),
      objects: Number(counts.objects),
      truncated: moreSessions || keys.length > limit,
    };
  });
}
