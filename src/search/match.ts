/**
 * Counting query terms in a candidate's text, as the index would have matched
 * them: the same index text (src/search/text.ts), the same tokens and stems.
 * Only a bounded window of a turn is read (DESIGN.md 11, "Cost").
 */
import type { Alternative, Term } from "./query.ts";
import { indexText } from "./text.ts";
import { type Token, tokenize } from "./tokens.ts";

/** How often each term occurs in a text, and how many tokens the text has. */
export interface Counts {
  tf: number[];
  length: number;
}

/** Counts every term in a text. */
export function countTerms(terms: readonly Term[], text: string): Counts {
  const tokens = tokenize(indexText(text));
  const stems = tokens.map((t) => t.stem);
  return { tf: terms.map((term) => term.alternatives.reduce((n, alt) => n + occurrences(alt, stems), 0)), length: tokens.length };
}

/** Occurrences of one alternative (a run of stems, the last possibly a prefix) in a list of stems. */
function occurrences(alt: Alternative, stems: string[]): number {
  const k = alt.stems.length;
  let n = 0;
  for (let i = 0; i + k <= stems.length; i++) {
    let ok = true;
    for (let j = 0; j < k && ok; j++) ok = matchesStem(alt, j, stems[i + j]!);
    if (ok) n++;
  }
  return n;
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
