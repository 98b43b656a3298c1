/**
 * A point in the tape's history (DESIGN.md section 17): an LSN or an ISO 8601
 * time. `read`, `sessions`, `search`, `fact_get`, `fact_list` and `diff` take
 * one; the engine resolves a time to the last record at or before it.
 */
import { z } from "zod";

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Whether `s` is an ISO 8601 time zerodb reads (a date, or a date and time, with an optional offset). */
export function isIsoTime(s: string): boolean {
  return ISO.test(s) && !Number.isNaN(Date.parse(s));
}

/** An ISO 8601 time, as `before` in a forget selector. */
export const IsoTime = z.string().superRefine((s, ctx) => {
  if (!isIsoTime(s)) ctx.addIssue({ code: "custom", message: "must be an ISO 8601 time such as 2026-01-31T12:00:00Z" });
});

const AS_OF_RULE = "must be an LSN (a whole number) or an ISO 8601 time such as 2026-01-31T12:00:00Z";

/**
 * An LSN (0 is before the first record) or an ISO 8601 time. Doors that carry
 * text (a query string, a flag) may pass the LSN as digits.
 */
export const AsOf = z.union([z.number(), z.string()], { error: AS_OF_RULE }).superRefine((v, ctx) => {
  const ok = typeof v === "number" ? Number.isSafeInteger(v) && v >= 0 : /^\d{1,16}$/.test(v) ? Number.isSafeInteger(Number(v)) : isIsoTime(v);
  if (!ok) ctx.addIssue({ code: "custom", message: AS_OF_RULE });
});

/** A checked `as_of` as what it names: an LSN, or a time in milliseconds since the epoch. */
export type AsOfPoint = { lsn: number } | { ms: number };

/** The point a checked `as_of` names. */
export function asOfPoint(v: number | string): AsOfPoint {
  if (typeof v === "number") return { lsn: v };
  if (/^\d+$/.test(v)) return { lsn: Number(v) };
  return { ms: Date.parse(v) };
}
