/**
 * A point in the tape's history (DESIGN.md section 17): an LSN or an ISO 8601
 * time. `read`, `sessions`, `search`, `fact_get`, `fact_list` and `diff` take
 * one; the engine resolves a time to the last record at or before it.
 */
import { z } from "zod";
import { isIsoTime } from "./as-of-point.ts";

export { type AsOfPoint, asOfPoint, isIsoTime } from "./as-of-point.ts";

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
