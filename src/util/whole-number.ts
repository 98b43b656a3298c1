/**
 * Whole decimal numbers as every door reads them (DESIGN.md I6): digits only,
 * so "12abc", "-1", "1e3", " 1" and "" are refused rather than coerced the
 * way Number() or parseInt() would. Sixteen digits bound the work and cover
 * every safe integer.
 */
import { invalid } from "../errors.ts";

const DIGITS = /^\d{1,16}$/;

/**
 * The value of `text` when it is 1 to 16 decimal digits, else undefined. It
 * can pass Number.MAX_SAFE_INTEGER: a caller comparing it with a limit needs
 * no more; `wholeNumber` refuses it.
 */
export function digitsValue(text: string): number | undefined {
  return DIGITS.test(text) ? Number(text) : undefined;
}

/** `value` as a safe whole number, or invalid_input naming `field`. */
export function wholeNumber(field: string, value: unknown): number {
  const n = typeof value === "string" ? digitsValue(value) : undefined;
  if (n === undefined) throw invalid(field, "must be a whole number");
  if (!Number.isSafeInteger(n)) throw invalid(field, "is too large");
  return n;
}
