/**
 * Ranking (DESIGN.md 11): a turn that holds more of the query's words comes
 * first, rare words weighing more than common ones (the idf-weighted share of
 * the query it holds); within that, BM25 on a bounded window of the turn;
 * then the turn's kind (what the user chose to remember first, harness chatter
 * last); recency breaks ties.
 */
import { SearchClass } from "./classify.ts";

/** BM25 parameters (the usual ones, https://en.wikipedia.org/wiki/Okapi_BM25). */
const K1 = 1.2;
const B = 0.75;

/** Inverse document frequency of a term held by `df` of `n` records (BM25's, floored above zero). */
export function idf(df: number, n: number): number {
  return Math.log(1 + (Math.max(n, df) - df + 0.5) / (df + 0.5)) + 0.05;
}

/** BM25 of one record: term frequencies and idfs, its length against the average. */
export function bm25(tf: readonly number[], opts: { idfs: readonly number[]; length: number; avgLength: number }): number {
  const { idfs, length, avgLength } = opts;
  let s = 0;
  const norm = K1 * (1 - B + (B * length) / Math.max(1, avgLength));
  for (let i = 0; i < tf.length; i++) {
    const f = tf[i]!;
    if (f > 0) s += idfs[i]! * ((f * (K1 + 1)) / (f + norm));
  }
  return s;
}

/** What holding the query's consecutive words side by side adds, at most: between `near` and BM25. */
const PAIR_WEIGHT = 0.75;

/** How much a record's kind adds to its score: a small nudge, never more than one more query word. */
const CLASS_PRIOR: Record<number, number> = {
  [SearchClass.note]: 0.12,
  [SearchClass.prompt]: 0.04,
  [SearchClass.reply]: 0.04,
  [SearchClass.tool_call]: 0,
  [SearchClass.tool_result]: -0.02,
  [SearchClass.system]: -0.04,
  [SearchClass.link]: 0.06,
  [SearchClass.noise]: -0.1,
};

/**
 * The final score of a record: the share of the query's weight it holds,
 * how much of it lies close together (a sentence that says it, rather than
 * a long log that holds the words by chance) and how much stands side by
 * side in the query's order (`upload client`, the sequential-dependence
 * idea of Metzler and Croft, 2005); then BM25, squashed below one step;
 * then its kind.
 */
export function score(opts: { share: number; near: number; pairs: number; bm25: number; cls: number }): number {
  const squashed = opts.bm25 / (opts.bm25 + 4);
  return opts.share * 2 + opts.near * 1 + opts.pairs * PAIR_WEIGHT + squashed * 0.5 + (CLASS_PRIOR[opts.cls] ?? 0);
}
