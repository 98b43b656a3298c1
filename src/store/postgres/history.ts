/**
 * The read-only listings on the PostgreSQL tape, as the SQLite engine's:
 * link_list and fact_history newest first, paged by `before` within a byte
 * budget, and activity (turns and bytes per UTC day) in one aggregate query.
 */
import { ACTIVITY_DAYS_DEFAULT, PAGE_DEFAULT } from "../../limits.ts";
import type { ActivityInput, FactHistoryInput, LinkListInput } from "../../schema/ops.ts";
import type { ActivityResult, FactHistoryResult, LinkListResult } from "../../schema/results.ts";
import { DAY_MS, dayName, firstDay, pageTake } from "../history-page.ts";
import { type Q, isoTime } from "./_tape.ts";
import { decodeJson, encodeText } from "./nul.ts";

/** An LSN above every LSN: `before` when the caller gave none. */
const TOP = Number.MAX_SAFE_INTEGER;

/** The tenant's live links, newest first, before an LSN; with `prefix`, only URLs that start with it. One snapshot (I4). */
export function linkList(sql: Q, tenant: string, input: LinkListInput): Promise<LinkListResult> {
  const limit = input.limit ?? PAGE_DEFAULT;
  const before = input.before ?? TOP;
  // The URL as data holds it: the encoding is a prefix code, so a prefix of the URL is a prefix of its encoding (nul.ts).
  const prefix = input.prefix === undefined ? null : encodeText(input.prefix);
  return sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx): Promise<LinkListResult> => {
    // A link has no subject: the tape_subject index (tenant, 'link', NULL, lsn) walks them newest first.
    const sizes = await tx`SELECT lsn, bytes FROM tape
      WHERE tenant = ${tenant} AND kind = 'link' AND subject IS NULL AND forgotten_by IS NULL AND lsn < ${before}
        AND (${prefix}::text IS NULL OR starts_with(data->>'url', ${prefix}::text))
      ORDER BY lsn DESC LIMIT ${limit + 1}`;
    const take = pageTake(
      sizes.map((s: { bytes: string }) => Number(s.bytes)),
      limit,
    );
    if (take === 0) return { links: [], next: null };
    const rows = await tx`SELECT lsn, ts, data FROM tape
      WHERE tenant = ${tenant} AND kind = 'link' AND subject IS NULL AND forgotten_by IS NULL AND lsn < ${before} AND lsn >= ${sizes[take - 1].lsn}
        AND (${prefix}::text IS NULL OR starts_with(data->>'url', ${prefix}::text))
      ORDER BY lsn DESC`;
    const links = rows.map((r: { lsn: string; ts: string; data: { url: string; title?: string | null; note?: string | null } }) => {
      const d = decodeJson(r.data);
      return { lsn: Number(r.lsn), url: d.url, title: d.title ?? null, note: d.note ?? null, ts: isoTime(r.ts) };
    });
    return { links, next: take < sizes.length ? links[links.length - 1]!.lsn : null };
  });
}

/** Every live value of a fact key, newest first, before an LSN (each fact_set stays on the tape until forgotten). */
export function factHistory(sql: Q, tenant: string, input: FactHistoryInput): Promise<FactHistoryResult> {
  const limit = input.limit ?? PAGE_DEFAULT;
  const before = input.before ?? TOP;
  return sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx): Promise<FactHistoryResult> => {
    const sizes = await tx`SELECT lsn, bytes FROM tape
      WHERE tenant = ${tenant} AND kind = 'fact' AND subject = ${input.key} AND forgotten_by IS NULL AND lsn < ${before}
      ORDER BY lsn DESC LIMIT ${limit + 1}`;
    const take = pageTake(
      sizes.map((s: { bytes: string }) => Number(s.bytes)),
      limit,
    );
    if (take === 0) return { key: input.key, values: [], next: null };
    const rows = await tx`SELECT lsn, ts, data FROM tape
      WHERE tenant = ${tenant} AND kind = 'fact' AND subject = ${input.key} AND forgotten_by IS NULL AND lsn < ${before} AND lsn >= ${sizes[take - 1].lsn}
      ORDER BY lsn DESC`;
    const values = rows.map((r: { lsn: string; ts: string; data: { value: unknown } }) => ({
      value: decodeJson(r.data.value),
      lsn: Number(r.lsn),
      ts: isoTime(r.ts),
    }));
    return { key: input.key, values, next: take < sizes.length ? values[values.length - 1]!.lsn : null };
  });
}

/** Turns and their bytes per UTC day since the first day: one GROUP BY, bounded by the tape_ts index (tenant, ts). */
export async function activity(sql: Q, tenant: string, input: ActivityInput, now = Date.now()): Promise<ActivityResult> {
  const first = firstDay(input.days ?? ACTIVITY_DAYS_DEFAULT, now);
  const rows = await sql`SELECT ts / ${DAY_MS}::bigint AS day, count(*) AS turns, coalesce(sum(bytes), 0) AS bytes FROM tape
    WHERE tenant = ${tenant} AND ts >= ${first * DAY_MS}::bigint AND forgotten_by IS NULL AND kind = 'turn'
    GROUP BY day ORDER BY day`;
  return {
    since: dayName(first),
    daily: rows.map((r: { day: string; turns: string; bytes: string }) => ({ day: dayName(Number(r.day)), turns: Number(r.turns), bytes: Number(r.bytes) })),
  };
}
