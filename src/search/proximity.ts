/**
 * How close together and in what order a query's words lie in a text
 * (DESIGN.md 11, ranking): the occurrences countTerms finds, measured as the
 * most query weight inside about a sentence, and the share of the query's
 * consecutive pairs found side by side in its order.
 */

/** Tokens that count as "close together" (about a sentence). */
export const NEAR_TOKENS = 16;

/** Characters that count as "close together" when positions are characters (the fast path). */
export const NEAR_CHARS = 100;
/** Characters between two terms side by side: a space or punctuation (`upload client`, `upload-client`, `upload, client`). */
export const PAIR_GAP_CHARS = 3;
/** Tokens from one term's last to the next term's first when they are side by side. */
export const PAIR_GAP_TOKENS = 1;

/**
 * Occurrences of terms in a text, in order of position: three parallel
 * arrays, since a long window holds thousands (an object each cost more
 * than counting them).
 */
export class Hits {
  pos: number[] = [];
  end: number[] = [];
  term: number[] = [];

  get length(): number {
    return this.pos.length;
  }

  push(pos: number, end: number, term: number): void {
    this.pos.push(pos);
    this.end.push(end);
    this.term.push(term);
  }

  /** The same occurrences in order of position (the token path finds them term by term). */
  sorted(): Hits {
    const order = this.pos.map((_, i) => i).sort((a, b) => this.pos[a]! - this.pos[b]! || a - b);
    const out = new Hits();
    for (const i of order) out.push(this.pos[i]!, this.end[i]!, this.term[i]!);
    return out;
  }
}

/**
 * The share of the query's consecutive pairs of terms (weighed by the rarer
 * of the two) that occur side by side in the query's order: `upload client`
 * in a turn saying "the upload client", not one holding `upload` and
 * `client` apart. `gap` is the most positions from the end of one to the
 * start of the next.
 */
export function pairShare(hits: Hits, weights: readonly number[], gap: number): number {
  if (weights.length < 2) return 0;
  let all = 0;
  for (let i = 0; i + 1 < weights.length; i++) all += Math.min(weights[i]!, weights[i + 1]!);
  if (all <= 0) return 0;
  const found = new Uint8Array(weights.length);
  const { pos, end, term } = hits;
  for (let i = 0; i + 1 < pos.length; i++) {
    const a = term[i]!;
    for (let j = i + 1; j < pos.length && pos[j]! - end[i]! <= gap; j++) {
      if (term[j] === a + 1) found[a] = 1;
    }
  }
  let share = 0;
  for (let i = 0; i + 1 < weights.length; i++) if (found[i]) share += Math.min(weights[i]!, weights[i + 1]!);
  return share / all;
}

/** The most weight of distinct terms inside any window of `span` positions, as a share of all. */
export function nearness(hits: Hits, weights: readonly number[], span: number): number {
  const all = weights.reduce((s, w) => s + w, 0);
  if (hits.length === 0 || all <= 0) return 0;
  const { pos, term } = hits;
  let terms = weights.length;
  for (const t of term) if (t >= terms) terms = t + 1;
  const inWindow = new Int32Array(terms);
  let weight = 0;
  let best = 0;
  for (let a = 0, b = 0; b < pos.length; b++) {
    const t = term[b]!;
    const c = inWindow[t]!;
    if (c === 0) weight += weights[t] ?? 0;
    inWindow[t] = c + 1;
    while (pos[b]! - pos[a]! >= span) {
      const u = term[a]!;
      const left = inWindow[u]! - 1;
      inWindow[u] = left;
      if (left === 0) weight -= weights[u] ?? 0;
      a++;
    }
    if (weight > best) best = weight;
  }
  return Math.min(1, best / all);
}
