/**
 * The head-and-tail preview that replaces a spilled result (DESIGN.md
 * section 9): 4 parts head to 1 part tail around a notice, never more than
 * the inline budget, cut on UTF-8 character boundaries.
 */

/** True when byte `i` of `bytes` starts a character (or is the end). */
function isBoundary(bytes: Uint8Array, i: number): boolean {
  // UTF-8 continuation bytes are 10xxxxxx (RFC 3629 section 3).
  return i >= bytes.length || (bytes[i]! & 0xc0) !== 0x80;
}

/** A preview and how many bytes of the original it leaves out. */
export interface Preview {
  text: string;
  omittedBytes: number;
}

/**
 * Builds `head + notice(omitted) + tail` from the UTF-8 bytes of a text, in
 * at most `maxBytes` bytes. Returns undefined when the notice alone does not
 * fit. `notice` must grow with the digits of its argument only, as a byte
 * count rendered in decimal does.
 */
export function headTailPreview(bytes: Uint8Array, maxBytes: number, notice: (omittedBytes: number) => string): Preview | undefined {
  const total = bytes.length;
  // The widest notice: no omitted count can have more digits than the total.
  const noticeMax = Buffer.byteLength(notice(total), "utf8");
  const budget = maxBytes - noticeMax;
  if (budget < 0) return undefined;
  // Nothing to cut: the caller spills only texts over the budget, but stay total.
  if (total <= maxBytes) return { text: Buffer.from(bytes).toString("utf8"), omittedBytes: 0 };
  const headBudget = Math.floor((budget * 4) / 5);
  const tailBudget = budget - headBudget;
  let head = headBudget;
  while (head > 0 && !isBoundary(bytes, head)) head--;
  let tail = total - tailBudget;
  while (tail < total && !isBoundary(bytes, tail)) tail++;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const omittedBytes = tail - head;
  return { text: `${buf.toString("utf8", 0, head)}${notice(omittedBytes)}${buf.toString("utf8", tail, total)}`, omittedBytes };
}
