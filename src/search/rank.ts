/**
 * Ranking (DESIGN.md 11): BM25 on a bounded window of the turn, raised by
 * how close together and in what order the query's words lie in it; then how
 * much of the query it holds and the turn's kind; recency breaks ties.
 */
import { SearchClass } from "./search-class.ts";

/**
 * BM25 parameters (https://en.wikipedia.org/wiki/Okapi_BM25): the usual K1,
 * and B above the usual 0.75, since captured turns range from a one-line
 * reply to a 100 KiB tool result: a long turn holding a question's words by
 * chance falls further below the short turn that says it (measured on the
 * real set's tune queries: docs/decisions/search.md, 2026-12-02).
 */
const K1 = 1.2;
const B = 0.9;

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

/** BM25's average record length, in tokens: about what a captured turn of a real transcript holds (neither engine keeps a running average). */
export const AVG_TOKENS = 120;
/** What holding the query's words close together (about a sentence) multiplies BM25 by, at most: 1 + NEAR_WEIGHT. */
const NEAR_WEIGHT = 0.5;
/** What holding the query's consecutive words side by side multiplies BM25 by, at most: 1 + PAIR_WEIGHT. */
const PAIR_WEIGHT = 0.3;
/** What holding the whole query adds, as a share of the query's weight (the sum of its idfs). */
const SHARE_WEIGHT = 0.3;

/**
 * How much a record's kind adds to its score, as a share of the query's
 * weight: a small nudge (what the user chose to remember first, harness
 * chatter last), and a compaction summary well below the turns it
 * summarizes, since it holds the words of a whole session (DESIGN.md 11).
 */
const CLASS_PRIOR: Record<number, number> = {
  [SearchClass.note]: 0.12,
  [SearchClass.prompt]: 0.04,
  [SearchClass.reply]: 0.04,
  [SearchClass.tool_call]: 0,
  [SearchClass.tool_result]: -0.02,
  [SearchClass.system]: -0.04,
  [SearchClass.link]: 0.06,
  [SearchClass.summary]: -0.3,
  [SearchClass.noise]: -0.1,
};

/**
 * What a prompt adds, as a share of the query's weight, when the query asks
 * what the user said (`what did I type after...`): more than holding the
 * whole query adds, so the prompt that says it ranks above the assistant's
 * notes about it (measured on the real set's tune queries:
 * docs/decisions/search.md, 2026-12-02).
 */
const ASKED_WEIGHT = 0.6;

/**
 * The final score of a record: BM25 over its words and length, raised by
 * how much of the query lies close together (a sentence that says it, rather
 * than a long log holding the words by chance) and how much stands side by
 * side in the query's order (`upload client`, the sequential-dependence idea
 * of Metzler and Croft, 2005); then the share of the query's weight it holds
 * and its kind (a prompt more when the query asks what the user said), each
 * as a share of that weight.
 *
 * Measured on real transcripts (README, Search): the share-first order tuned
 * on the generated set put long files holding many of a question's words by
 * chance above the short turn that answers it, and fell below a plain BM25;
 * BM25 first, with these as its modifiers, is at or above it.
 */
export function score(opts: { share: number; near: number; pairs: number; bm25: number; cls: number; weight: number; asked?: boolean }): number {
  const prior = (CLASS_PRIOR[opts.cls] ?? 0) + (opts.asked ? ASKED_WEIGHT : 0);
  return opts.bm25 * (1 + NEAR_WEIGHT * opts.near + PAIR_WEIGHT * opts.pairs) + (SHARE_WEIGHT * opts.share + prior) * opts.weight;
}
