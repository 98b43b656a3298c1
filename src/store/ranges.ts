/**
 * Ranges every engine computes the same way: the end of a name prefix (for a
 * range scan of names), and a forget record's hidden LSNs as inclusive runs.
 */

/** The smallest string greater than every string that starts with `prefix` (code point order). */
export function prefixEnd(prefix: string): string | null {
  const cps = Array.from(prefix);
  while (cps.length > 0) {
    const last = cps.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      let next = last + 1;
      if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
      return cps.join("") + String.fromCodePoint(next);
    }
  }
  return null;
}

/**
 * Facts zerodb keeps for itself: which file each capture cursor follows
 * (src/capture/cursor-identity.ts), one per transcript. A fact list leaves
 * them out unless its prefix looks inside `capture/`, so a person or an agent
 * listing facts sees what was set, not hundreds of digests.
 */
export const BOOKKEEPING_FACTS = "capture/source/";

/** Whether a fact list with this prefix shows the bookkeeping facts. */
export function listsBookkeeping(prefix: string | undefined): boolean {
  return prefix?.startsWith("capture/") === true;
}

/** Sorted LSNs as inclusive ranges of consecutive LSNs: a session captured alone is one range. */
export function lsnRanges(sorted: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const lsn of sorted) {
    const last = out[out.length - 1];
    if (last && lsn === last[1] + 1) last[1] = lsn;
    else out.push([lsn, lsn]);
  }
  return out;
}
