/**
 * Counting query terms in a candidate's text, as the index would have matched
 * them: the same index text (src/search/text.ts), the same tokens and stems.
 * Only a bounded window of a turn is read (DESIGN.md 11, "Cost").
 */
import { escapeRegExp } from "../util/regexp.ts";
import type { Alternative, Term } from "./query.ts";
import { indexText } from "./text.ts";
import { Hits, NEAR_CHARS, NEAR_TOKENS, PAIR_GAP_CHARS, PAIR_GAP_TOKENS, nearness, pairShare } from "./proximity.ts";
import { type Token, fold, stem, tokenize } from "./tokens.ts";

/** How often each term occurs in a text, how many tokens it has, and how close together its terms lie. */
export interface Counts {
  tf: number[];
  length: number;
  /** The largest share of the query's weight found within NEAR_TOKENS consecutive tokens (0..1). */
  near: number;
  /** The share of the query's consecutive pairs of terms found side by side, in the query's order (0..1). */
  pairs: number;
  /**
   * Where each occurrence starts, in order, and its term: characters of
   * `countedText(text)` when `chars`, else tokens (a query with phrases or
   * CJK is counted by tokenizing).
   */
  at: { pos: readonly number[]; term: readonly number[]; chars: boolean };
}

const ESCAPES = /\\[nrt]/g;

/** One occurrence of a term in a text: where it starts and ends, and which term. */
export interface Span {
  start: number;
  end: number;
  term: number;
}

/** A regular expression finding every term of a query of single words, with the check of each candidate. */
interface FastMatcher {
  re: RegExp;
  /** The same without capture groups, when every term is a word (groups cost more than the search). */
  plain: RegExp | null;
  checks: { term: number; alt: Alternative; cjk: boolean }[];
  /** Some term is matched as a literal (CJK), not as a whole word. */
  literals: boolean;
  /** The term each word seen so far belongs to (-1: none): a long window repeats its words. */
  words: Map<string, number>;
  /** The last RECENT words looked up and their terms, alternately. */
  recent: (string | number)[];
}

/** Words termOfWord compares before looking in its map. */
const RECENT = 4;

/** Distinct words remembered per matcher. */
const WORDS_MAX = 4096;

const matchers = new WeakMap<readonly Term[], FastMatcher | null>();

/** A matcher by regular expression for terms that are all single words (or prefixes), or null. */
function fastMatcher(terms: readonly Term[]): FastMatcher | null {
  const known = matchers.get(terms);
  if (known !== undefined) return known;
  let made: FastMatcher | null = null;
  if (terms.every((t) => t.alternatives.every((a) => a.tokens.length === 1))) {
    const patterns: string[] = [];
    const starts: string[] = [];
    const checks: FastMatcher["checks"] = [];
    for (const [i, term] of terms.entries()) {
      for (const alt of term.alternatives) {
        const tok = alt.tokens[0]!;
        const cjk = /[^\x00-\u2e7f]/.test(tok) && !/[\p{Script=Latin}]/u.test(tok);
        // Porter may change a word's end (deploy -> deploi): candidates share the word's and the stem's common start.
        let k = 0;
        while (k < tok.length && k < alt.stems[0]!.length && tok[k] === alt.stems[0]![k]) k++;
        const start = escapeRegExp(tok.slice(0, Math.max(k, 1)));
        patterns.push(cjk ? `(${escapeRegExp(tok)})` : `(?<![\\p{L}\\p{N}])(${start}[\\p{L}\\p{N}]*)`);
        starts.push(start);
        checks.push({ term: i, alt, cjk });
      }
    }
    const literals = checks.some((c) => c.cjk);
    made = {
      re: new RegExp(patterns.join("|"), "giu"),
      plain: literals ? null : new RegExp(`(?<![\\p{L}\\p{N}])(?:${starts.join("|")})[\\p{L}\\p{N}]*`, "giu"),
      checks,
      literals,
      words: new Map(),
      recent: [],
    };
  }
  matchers.set(terms, made);
  return made;
}

/** The term a word belongs to, or -1: the first term whose stem it has (remembered per matcher). */
function termOfWord(m: FastMatcher, word: string): number {
  // The words seen last, compared as strings: a window repeats a few words, and a fresh substring
  // is compared faster than it is hashed for a Map.
  const recent = m.recent;
  for (let i = 0; i < recent.length; i += 2) if (recent[i] === word) return recent[i + 1] as number;
  let known = m.words.get(word);
  if (known === undefined) {
    const st = stem(fold(word));
    known = m.checks.find((k) => !k.cjk && (k.alt.prefix ? st.startsWith(k.alt.stems[0]!) : st === k.alt.stems[0]))?.term ?? -1;
    if (m.words.size >= WORDS_MAX) m.words.clear();
    m.words.set(word, known);
  }
  if (recent.length >= RECENT * 2) recent.splice(0, 2);
  recent.push(word, known);
  return known;
}

/**
 * Calls `each` for every occurrence the matcher finds in a text (escapes
 * already blanked), up to `max`. Every word pattern takes the whole word, so
 * the first pattern that fits its start wins the match ("form*" takes
 * "format"): the word goes to the first term whose stem it has, whichever
 * pattern matched.
 */
function scan(m: FastMatcher, text: string, max: number, each: (start: number, end: number, term: number) => void): void {
  let n = 0;
  if (m.plain) {
    const re = m.plain;
    re.lastIndex = 0;
    for (let hit = re.exec(text); hit !== null && n < max; hit = re.exec(text)) {
      const term = termOfWord(m, hit[0]);
      if (term < 0) continue;
      each(hit.index, hit.index + hit[0].length, term);
      n++;
    }
    return;
  }
  for (const hit of text.matchAll(m.re)) {
    const literal = m.checks[hit.findIndex((x, j) => j > 0 && x !== undefined) - 1]!;
    const term = literal.cjk ? literal.term : termOfWord(m, hit[0]);
    if (term < 0) continue;
    each(hit.index, hit.index + hit[0].length, term);
    if (++n >= max) break;
  }
}

/**
 * Counts every term in a text; `weights` (each term's idf) weigh the nearness.
 * A query of single words (the usual case) is counted by one regular
 * expression over the text, checking each candidate word's stem, which is
 * several times cheaper than tokenizing the whole window; phrases take the
 * token path.
 */
export function countTerms(terms: readonly Term[], text: string, weights: readonly number[]): Counts {
  const fast = fastMatcher(terms);
  if (!fast) return countTokens(terms, text, weights);
  const t = countedText(text);
  const tf = terms.map(() => 0);
  const hits = new Hits();
  scan(fast, t, Number.POSITIVE_INFINITY, (pos, end, term) => {
    tf[term]!++;
    hits.push(pos, end, term);
  });
  return {
    tf,
    length: Math.max(1, Math.round(t.length / 6)),
    near: nearness(hits, weights, NEAR_CHARS),
    pairs: pairShare(hits, weights, PAIR_GAP_CHARS),
    at: { pos: hits.pos, term: hits.term, chars: true },
  };
}

/** The text countTerms reads: escapes (`\\n`, `\\t`) blanked, so `\\nfoo` holds the word `foo`; its positions are this text's. */
export function countedText(text: string): string {
  return text.includes("\\") ? text.replace(ESCAPES, " ") : text;
}

/**
 * Where the terms occur in a text, in order, at most `max` of them, as
 * positions of the text itself (for marking a snippet): by the regular
 * expression when the query is single words, else by tokenizing.
 */
export function termSpans(terms: readonly Term[], text: string, max: number): Span[] {
  const fast = fastMatcher(terms);
  // Escapes blanked to as many spaces, so positions stay those of the text.
  if (fast) {
    const out: Span[] = [];
    scan(fast, text.includes("\\") ? text.replace(ESCAPES, "  ") : text, max, (start, end, term) => out.push({ start, end, term }));
    return out;
  }
  const out: Span[] = [];
  for (const tok of tokenize(text)) {
    const i = terms.findIndex((t) => tokenMatches(t, tok));
    if (i >= 0) out.push({ start: tok.start, end: tok.end, term: i });
    if (out.length >= max) break;
  }
  return out;
}

/** Counts by tokenizing the text as the index does. */
function countTokens(terms: readonly Term[], text: string, weights: readonly number[]): Counts {
  const tokens = tokenize(indexText(text));
  const stems = tokens.map((t) => t.stem);
  const found = new Hits();
  const tf = terms.map((term, ti) => {
    let n = 0;
    for (const alt of term.alternatives) {
      for (const pos of occurrences(alt, stems)) {
        found.push(pos, pos + alt.stems.length - 1, ti);
        n++;
      }
    }
    return n;
  });
  const hits = found.sorted();
  return {
    tf,
    length: tokens.length,
    near: nearness(hits, weights, NEAR_TOKENS),
    pairs: pairShare(hits, weights, PAIR_GAP_TOKENS),
    at: { pos: hits.pos, term: hits.term, chars: false },
  };
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
