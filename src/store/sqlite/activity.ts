/** activity on the SQLite tape: turns and their bytes per UTC day, in one aggregate query. */
import type { Database } from "bun:sqlite";
import { ACTIVITY_DAYS_DEFAULT } from "../../limits.ts";
import type { ActivityInput } from "../../schema/ops.ts";
import type { ActivityResult } from "../../schema/results.ts";
import { DAY_MS, dayName, firstDay } from "../history-page.ts";

/**
 * One GROUP BY over the tenant's live rows since the first day: the tape_ts
 * index (tenant, ts) bounds it to the span asked for, never the whole tape,
 * and days without turns are left out.
 */
export function activity(db: Database, tenant: string, input: ActivityInput, now = Date.now()): ActivityResult {
  const first = firstDay(input.days ?? ACTIVITY_DAYS_DEFAULT, now);
  const rows = db
    .query(
      `SELECT ts / ${DAY_MS} AS day, count(*) AS turns, coalesce(sum(bytes), 0) AS bytes FROM tape
       WHERE tenant = ? AND ts >= ? AND forgotten_by IS NULL AND kind = 'turn' GROUP BY day ORDER BY day`,
    )
    .all(tenant, first * DAY_MS) as { day: number; turns: number; bytes: number }[];
  return { since: dayName(first), daily: rows.map((r) => ({ day: dayName(r.day), turns: r.turns, bytes: r.bytes })) };
}
