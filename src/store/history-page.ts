/**
 * The read-only listings both engines page the same way, newest first
 * (link_list, fact_history): how many rows of a page fit its byte budget, and
 * the UTC days `activity` counts over.
 */
import { READ_PAGE_MAX_BYTES } from "../limits.ts";

/**
 * How many of `sizes` (payload bytes, in page order) one page takes: at most
 * `limit` rows and READ_PAGE_MAX_BYTES of payload, always at least one row,
 * as `read` pages a session (1,000 values of 1 MiB would be 1 GB).
 */
export function pageTake(sizes: readonly number[], limit: number): number {
  let take = 0;
  let bytes = 0;
  while (take < Math.min(limit, sizes.length) && (take === 0 || bytes + sizes[take]! <= READ_PAGE_MAX_BYTES)) {
    bytes += sizes[take]!;
    take++;
  }
  return take;
}

/** Milliseconds in a day: a UTC day is `floor(ts / DAY_MS)`. */
export const DAY_MS = 86_400_000;

/** The first UTC day (as a day number) of a span of `days` days ending today. */
export function firstDay(days: number, now = Date.now()): number {
  return Math.floor(now / DAY_MS) - days + 1;
}

/** A day number as YYYY-MM-DD. */
export function dayName(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
