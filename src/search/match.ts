/**
 * Counting query terms in a candidate's text, as the index would have matched
 * them: the same index text (src/search/text.ts), the same tokens and stems.
 * Only a bounded window of a turn is read (DESIGN.md 11, "Cost").
 */
import { escapeRegExp } from "../util/regexp.ts";
import type { Alternative, Term } from "./query.ts";
import { indexText } from "./text.ts";
import { type Token, fold, stem, tokenize } from "./tokens.ts";

/** How often each term occurs in a text, how many tokens it has, and how close together its terms lie. */
export interface Counts {
  tf: number[];
  length: number;
  /** The largest share of the query's weight found within NEAR_TOKENS consecutive tokens (0..1). */
  near: number;
}

/** Tokens that count as "close together" (about a sentence). */
export const NEAR_TOKENS = 16;

/** Characters that count as "close together" when positions are characters (the fast path). */
const NEAR_CHARS = 100;

/**
 * Counts every term in a text; `weights` (each term's idf) weigh the nearness.
 * A query of single words (the usual case) is counted by one regular
 * expression over the text, checking each candidate word's stem, which is
 * several times cheaper than tokenizing the whole window; phrases take the
 * token path.
 */
export function countTerms(terms: readonly Term[], text: string, weights: readonly number[]): Counts {
  const fast = fastMatcher(terms);
  return fast ? fast(text, weights) : countTokens(terms, text, weights);
}

const ESCAPES = /\\[nrt]/g;
const matchers = new WeakMap<readonly Term[], ((text: string, weights: readonly number[]) => Counts) | null>();

/** A counter by regular expression for terms that are all single words (or prefixes), or null. */
function fastMatcher(terms: readonly Term[]): ((text: string, weights: readonly number[]) => Counts) | null {
  const known = matchers.get(terms);
  if (known !== undefined) return known;
  let made: ((text: string, weights: readonly number[]) => Counts) | null = null;
  if (terms.every((t) => t.alternatives.every((a) => a.tokens.length === 1))) {
    const patterns: string[] = [];
    const checks: { term: number; alt: Alternative; cjk: boolean }[] = [];
    for (const [i, term] of terms.entries()) {
      for (const alt of term.alternatives) {
        const tok = alt.tokens[0]!;
        const cjk = /[^\x00-\u2e7f]/.test(tok) && !/[\p{Script=Latin}]/u.test(tok);
        // Porter may change a word's end (deploy -> deploi): candidates share the word's and the stem's common start.
        let k = 0;
        while (k < tok.length && k < alt.stems[0]!.length && tok[k] === alt.stems[0]![k]) k++;
        const start = escapeRegExp(tok.slice(0, Math.max(k, 1)));
        patterns.push(cjk ? `(${escapeRegExp(tok)})` : `(?<![\\p{L}\\p{N}])(${start}[\\p{L}\\p{N}]*)`);
        checks.push({ term: i, alt, cjk });
      }
    }
    const re = new RegExp(patterns.join("|"), "giu");
    made = (text, weights) => {
      const t = text.includes("\\") ? text.replace(ESCAPES, " ") : text;
      const tf = terms.map(() => 0);
      const hits: { pos: number; term: number }[] = [];
      for (const m of t.matchAll(re)) {
        const g = m.findIndex((x, j) => j > 0 && x !== undefined) - 1;
        const c = checks[g]!;
        if (!c.cjk) {
          const st = stem(fold(m[g + 1]!));
          if (c.alt.prefix ? !st.startsWith(c.alt.stems[0]!) : st !== c.alt.stems[0]) continue;
        }
        tf[c.term]!++;
        hits.push({ pos: m.index, term: c.term });
      }
      return { tf, length: Math.max(1, Math.round(t.length / 6)), near: nearness(hits, weights, NEAR_CHARS) };
    };
  }
  matchers.set(terms, made);
  return made;
}

/** Counts by tokenizing the text as the index does. */
function countTokens(terms: readonly Term[], text: string, weights: readonly number[]): Counts {
  const tokens = tokenize(indexText(text));
  const stems = tokens.map((t) => t.stem);
  const hits: { pos: number; term: number }[] = [];
  const tf = terms.map((term, ti) => {
    let n = 0;
    for (const alt of term.alternatives) {
      for (const pos of occurrences(alt, stems)) {
        hits.push({ pos, term: ti });
        n++;
      }
    }
    return n;
  });
  return { tf, length: tokens.length, near: nearness(hits, weights, NEAR_TOKENS) };
}

/** The most weight of distinct terms inside any window of `span` positions, as a share of all. */
function nearness(hits: { pos: number; term: number }[], weights: readonly number[], span: number): number {
  const all = weights.reduce((s, w) => s + w, 0);
  if (hits.length === 0 || all <= 0) return 0;
  hits.sort((a, b) => a.pos - b.pos);
  const inWindow = new Map<number, number>();
  let weight = 0;
  let best = 0;
  for (let a = 0, b = 0; b < hits.length; b++) {
    const t = hits[b]!.term;
    const c = inWindow.get(t) ?? 0;
    if (c === 0) weight += weights[t] ?? 0;
    inWindow.set(t, c + 1);
    while (hits[b]!.pos - hits[a]!.pos >= span) {
      const u = hits[a]!.term;
      const left = inWindow.get(u)! - 1;
      inWindow.set(u, left);
      if (left === 0) weight -= weights[u] ?? 0;
      a++;
    }
    if (weight > best) best = weight;
  }
  return Math.min(1, best / all);
}

/** Start positions of one alternative (a run of stems, the last possibly a prefix) in a list of stems. */
function occurrences(alt: Alternative, stems: string[]): number[] {
  const k = alt.stems.length;
  const out: number[] = [];
  for (let i = 0; i + k <= stems.length; i++) {
    let ok = true;
    for (let j = 0; j < k && ok; j++) ok = matchesStem(alt, j, stems[i + j]!);
    if (ok) out.push(i);
  }
  return out;
}

function matchesStem(alt: Alternative, j: number, stem: string): boolean {
  const want = alt.stems[j]!;
  return alt.prefix && j === alt.stems.length - 1 ? stem.startsWith(want) : stem === want;
}

/** True when a token of a turn's own text is (part of) an occurrence of the term, for marking it in a snippet. */
export function tokenMatches(term: Term, token: Token): boolean {
  for (const alt of term.alternatives) {
    for (let j = 0; j < alt.stems.length; j++) {
      if (matchesStem(alt, j, token.stem)) return true;
      // A CJK run is one token in the turn's text; its bigrams are in the index.
      if (token.folded.length > 1 && alt.tokens[j]!.length >= 1 && /[^\x00-\u2e7f]/.test(alt.tokens[j]!) && token.folded.includes(alt.tokens[j]!)) return true;
    }
  }
  return false;
}
