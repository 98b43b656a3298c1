/**
 * What both engines' first search stage does with the rows each query term
 * is known to be held by (DESIGN.md 11): lists of LSNs newest first, and one
 * merge of them into rows ranked by the idf of the terms they hold.
 */

/**
 * Rows holding a term, newest first (LSNs strictly descending, as either
 * engine's index answers them newest first): a plain array is several times cheaper to
 * build than a Set for the thousands of rows a common word has, and stage 1
 * merges the lists in one pass.
 */
export class RowList {
  constructor(readonly rows: readonly number[] = []) {}

  get size(): number {
    return this.rows.length;
  }

  /** Binary search over the descending LSNs. */
  has(lsn: number): boolean {
    const r = this.rows;
    let lo = 0;
    let hi = r.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = r[mid]!;
      if (v === lsn) return true;
      if (v > lsn) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** This list and another descending list, as one. */
  union(other: readonly number[]): RowList {
    const a = this.rows;
    const out: number[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length || j < other.length) {
      const x = i < a.length ? a[i]! : -1;
      const y = j < other.length ? other[j]! : -1;
      const v = Math.max(x, y);
      out.push(v);
      if (x === v) i++;
      if (y === v) j++;
    }
    return new RowList(out);
  }
}

/**
 * Every row of the lists, by the idf of the terms it is known to hold, best
 * first and newest first within a score, whole scores up to `max`. The lists
 * are merged in one pass, newest row first, so each score's rows come out
 * already in order.
 */
export function rankKnown(holders: readonly RowList[], opts: { idfs: readonly number[]; max: number }): number[] {
  const { idfs, max } = opts;
  const lists = holders.map((h) => h.rows);
  const at = new Int32Array(lists.length);
  const groups = new Map<number, number[]>();
  for (;;) {
    let lsn = -1;
    for (let j = 0; j < lists.length; j++) {
      const v = lists[j]![at[j]!];
      if (v !== undefined && v > lsn) lsn = v;
    }
    if (lsn < 0) break;
    let sc = 0;
    for (let j = 0; j < lists.length; j++) {
      if (lists[j]![at[j]!] === lsn) {
        sc += idfs[j]!;
        at[j]!++;
      }
    }
    const g = groups.get(sc);
    if (g) g.push(lsn);
    else groups.set(sc, [lsn]);
  }
  const ranked: number[] = [];
  for (const sc of [...groups.keys()].sort((a, b) => b - a)) {
    for (const lsn of groups.get(sc)!) ranked.push(lsn);
    if (ranked.length >= max) break;
  }
  return ranked;
}

/** Rows admitted per pool place whose lengths are weighed (choosePool): the pool is chosen among this many times its size. */
export const POOL_CHOICE = 4;

/**
 * The best `size` of the admitted rows (coordination order: `admitted`, best
 * first), chosen by BM25 with each known term counted once and each row's
 * real length (`bytes`): a short turn holding a few of the query's words
 * outranks a long file that holds more of them by chance, as BM25 itself
 * would rank them (DESIGN.md 11, "Ranking"). Ties keep coordination order.
 */
export function choosePool(
  admitted: readonly number[],
  opts: { bytes: ReadonlyMap<number, number>; holders: readonly RowList[]; idfs: readonly number[]; size: number },
): number[] {
  const { bytes, holders, idfs, size } = opts;
  if (admitted.length <= size) return [...admitted];
  const scored = admitted.map((lsn, at) => {
    let s = 0;
    for (let j = 0; j < holders.length; j++) if (holders[j]!.has(lsn)) s += idfs[j]!;
    // BM25 with tf = 1 (rank.ts): the saturation 2.2 / (1 + 1.2 (0.25 + 0.75 len/avg)), len in tokens of about 6 bytes.
    const len = (bytes.get(lsn) ?? 0) / 6;
    return { lsn, at, s: (s * 2.2) / (1 + 1.2 * (0.25 + (0.75 * len) / 80)) };
  });
  scored.sort((a, b) => b.s - a.s || a.at - b.at);
  // Taken in turns from both orders: a long turn holding most of the query many times over (what BM25
  // with its real frequencies ranks first) keeps its place beside the short turns BM25 with tf = 1 prefers.
  const out = new Set<number>();
  for (let k = 0; out.size < size; k++) {
    out.add(admitted[k]!);
    if (out.size < size) out.add(scored[k]!.lsn);
  }
  return [...out];
}
