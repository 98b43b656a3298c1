/**
 * The `Range` request header for one byte range (RFC 9110 section 14):
 * `bytes=first-last`, `bytes=first-` and the suffix `bytes=-length`.
 */
import type { ByteRange } from "../objects/types.ts";

/** What a Range header asks of an object of `size` bytes. */
export type RangeAsk =
  /** No usable Range header: send the whole object (200). */
  | { kind: "whole" }
  /** One satisfiable range (206); `end` is exclusive. */
  | { kind: "part"; range: ByteRange }
  /** A valid range the object cannot satisfy (416). */
  | { kind: "unsatisfiable" };

/**
 * Parses a Range header. A header that is not a single `bytes` range
 * (another unit, bad syntax, several ranges) is ignored, as RFC 9110
 * section 14.2 allows: the answer is then the whole object.
 */
export function parseRange(header: string | null | undefined, size: number): RangeAsk {
  if (!header) return { kind: "whole" };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === "" && m[2] === "")) return { kind: "whole" };
  const [first, last] = [m[1]!, m[2]!];
  if (first === "") {
    // Suffix range: the last N bytes (section 14.1.2); N = 0 selects nothing.
    const n = Number(last);
    if (!Number.isSafeInteger(n)) return { kind: "whole" };
    if (n === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "part", range: { start: Math.max(0, size - n), end: size } };
  }
  const start = Number(first);
  const stop = last === "" ? Number.MAX_SAFE_INTEGER : Number(last);
  // first > last is invalid syntax (ignored); a first byte past the end is unsatisfiable (section 14.1.1).
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(stop) || stop < start) return { kind: "whole" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "part", range: { start, end: Math.min(stop, size - 1) + 1 } };
}
