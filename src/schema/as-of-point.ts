/**
 * What an `as_of` names (DESIGN.md section 17), with no schema built: the
 * store resolves a checked `as_of` with these, and a process that opens a
 * store (a capture hook) builds none of as-of.ts's schemas (issue 32).
 */

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Whether `s` is an ISO 8601 time zerodb reads (a date, or a date and time, with an optional offset). */
export function isIsoTime(s: string): boolean {
  return ISO.test(s) && !Number.isNaN(Date.parse(s));
}

/** A checked `as_of` as what it names: an LSN, or a time in milliseconds since the epoch. */
export type AsOfPoint = { lsn: number } | { ms: number };

/** The point a checked `as_of` names. */
export function asOfPoint(v: number | string): AsOfPoint {
  if (typeof v === "number") return { lsn: v };
  if (/^\d+$/.test(v)) return { lsn: Number(v) };
  return { ms: Date.parse(v) };
}
