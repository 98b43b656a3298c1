/**
 * diff (DESIGN.md section 17) as every engine answers it: the points
 * resolved to LSNs, and the rows an engine found put in order. Forgotten rows
 * never reach it (I8, I9): a turn added and then forgotten inside the span
 * shows only in its forget's count.
 */
import { invalid } from "../errors.ts";
import type { DiffInput } from "../schema/ops.ts";
import type { DiffResult } from "../schema/results.ts";
import { type AsOfLookup, resolveAsOf } from "./as-of.ts";
import { lsnRanges } from "./ranges.ts";

/** The span a diff covers: records with from < LSN ≤ to. */
export async function diffSpan(input: DiffInput, lookup: AsOfLookup): Promise<{ from: number; to: number }> {
  const last = await lookup.lastLsn();
  const from = (await resolveAsOf(input.from, lookup)) ?? last;
  const to = input.to === undefined ? last : ((await resolveAsOf(input.to, lookup)) ?? last);
  if (to < from) throw invalid("to", `is before from (LSN ${to} < ${from})`);
  return { from, to };
}

/** A session's live turns in the span, as rows (lsn order). */
export interface TurnRow {
  name: string;
  lsn: number;
  bytes: number;
}

/** Turns per session, in name order, their LSNs as ranges; at most `limit` sessions. */
export function sessionsOf(rows: readonly TurnRow[], limit: number): { sessions: DiffResult["sessions"]; truncated: boolean } {
  const by = new Map<string, { lsns: number[]; bytes: number }>();
  for (const r of rows) {
    let s = by.get(r.name);
    if (!s) by.set(r.name, (s = { lsns: [], bytes: 0 }));
    s.lsns.push(r.lsn);
    s.bytes += r.bytes;
  }
  const names = [...by.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) as number);
  const sessions = names.slice(0, limit).map((name) => {
    const s = by.get(name)!;
    const lsns = s.lsns.sort((a, b) => a - b);
    return { name, turns: lsns.length, bytes: s.bytes, lsns: lsnRanges(lsns) };
  });
  return { sessions, truncated: names.length > limit };
}
