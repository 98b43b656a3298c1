/**
 * Words as SQLite's `porter unicode61 remove_diacritics 2` tokenizer sees
 * them (https://sqlite.org/fts5.html#tokenizers), for the work the index
 * cannot do: counting a query word in a candidate's text, marking it in a
 * snippet. Letters, digits and marks make a token; the rest separates; a
 * token is folded (lower case, diacritics removed) and stemmed with the same
 * Porter algorithm (the `stemmer` package; test/search checks it agrees with
 * SQLite's).
 */
import { stemmer } from "stemmer";

/** One token of a text: its folded form, its stem, and where it lies. */
export interface Token {
  folded: string;
  stem: string;
  start: number;
  end: number;
}

const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
/** Combining diacritical marks (U+0300–U+036F): what remove_diacritics takes off Latin letters; kana voicing marks stay. */
const MARKS = /[\u0300-\u036f]+/g;
const ASCII_WORD = /^[a-z0-9]+$/;

/** Lower case without diacritics, as remove_diacritics 2 folds it. */
export function fold(s: string): string {
  const lower = s.toLowerCase();
  return ASCII_WORD.test(lower) ? lower : lower.normalize("NFD").replace(MARKS, "").normalize("NFC");
}

const stems = new Map<string, string>();

/** The Porter stem of a folded token (ASCII letters only are stemmed, as SQLite's porter does). */
export function stem(folded: string): string {
  let s = stems.get(folded);
  if (s === undefined) {
    s = /^[a-z]+$/.test(folded) && folded.length > 2 ? stemmer(folded) : folded;
    if (stems.size > 50_000) stems.clear();
    stems.set(folded, s);
  }
  return s;
}

/** The tokens of a text, in order. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const folded = fold(m[0]);
    if (folded === "") continue;
    out.push({ folded, stem: stem(folded), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** Only the folded words of a text (no positions, no stems). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const f = fold(m[0]);
    if (f !== "") out.push(f);
  }
  return out;
}
