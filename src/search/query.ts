/**
 * From what a person or model typed to the terms search looks for (DESIGN.md
 * 11, "Query"). Tokenized as the index is; stopwords dropped unless nothing
 * else is left; `"quoted phrase"` is a phrase and `word*` a prefix. Nothing a
 * user types reaches FTS5's query syntax: every token is quoted
 * (https://sqlite.org/fts5.html#full_text_query_syntax), so `AND`, `NEAR(`,
 * `col:` and `^` in user text are plain words.
 */
import { invalid } from "../errors.ts";
import { isStopword } from "./stopwords.ts";
import { hasCjk, indexBody, indexParts } from "./text.ts";
import { synonymsOf } from "./synonyms.ts";
import { stem, words } from "./tokens.ts";

/** One way a term can occur: a run of consecutive tokens, the last one possibly a prefix. */
export interface Alternative {
  /** Folded tokens, as FTS5 is given them (it stems them itself). */
  tokens: string[];
  /** Their stems, for matching in JavaScript. */
  stems: string[];
  prefix: boolean;
}

/** One query term. */
export interface Term {
  /** What the user wrote for it (a word, `word*` or `"a phrase"`). */
  text: string;
  kind: "word" | "prefix" | "phrase";
  stopword: boolean;
  /** It matches where any alternative occurs. */
  alternatives: Alternative[];
  /** Other words for it (synonymsOf), searched for only when the term itself occurs nowhere (widened). */
  related?: Alternative[];
}

/** A parsed query. */
export interface ParsedQuery {
  /** The terms searched for (stopwords only when nothing else was left). */
  terms: Term[];
  /** Every term, stopwords included (the fallback when nothing else matches). */
  all: Term[];
}

/** At most this many terms are searched (the rest of a very long query is ignored). */
export const MAX_TERMS = 32;

const PIECE = /"([^"]*)"?|(\S+)/g;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Parses a query; `invalid_input` (field `query`) when it holds no word at all. */
export function parseQuery(query: string): ParsedQuery {
  const all: Term[] = [];
  const seen = new Set<string>();
  const clean = query.replace(CONTROL, " ");
  for (const m of clean.matchAll(PIECE)) {
    if (all.length >= MAX_TERMS) break;
    const phrase = m[1];
    if (phrase !== undefined) {
      const alt = alternativeOf(phrase, false);
      if (alt) push(all, seen, { text: `"${phrase.trim()}"`, kind: "phrase", stopword: false, alternatives: [alt] });
      continue;
    }
    const raw = m[2]!;
    const star = raw.length > 1 && raw.endsWith("*");
    const body = star ? raw.replace(/\*+$/, "") : raw;
    for (const term of wordTerms(body, star)) {
      if (all.length >= MAX_TERMS) break;
      push(all, seen, term);
    }
  }
  if (all.length === 0) throw invalid("query", "has no words to search for");
  const content = all.filter((t) => !t.stopword);
  return { terms: content.length > 0 ? content : all, all };
}

function push(out: Term[], seen: Set<string>, term: Term): void {
  const key = `${term.kind}:${term.alternatives.map((a) => a.tokens.join(" ") + (a.prefix ? "*" : "")).join("|")}`;
  if (seen.has(key)) return;
  seen.add(key);
  out.push(term);
}

/**
 * The terms of one whitespace-separated piece. Punctuation splits it as it
 * splits indexed text (`deploy/key` is two words, `upload_retry` two), except
 * that an identifier whose parts are joined by `_`, `.`, `:` or `-` is kept
 * as a phrase, so `upload_retry_count` finds that identifier and not three
 * unrelated words. Words of prose joined by hyphens alone (`one-time`,
 * `DOM-based`, `follow-up`) are words: the turn that answers often writes
 * them apart or only one of them, and holding them side by side still ranks
 * higher (rank.ts, pairs). Measured on the real set: docs/decisions/search.md,
 * 2026-12-03.
 */
function wordTerms(piece: string, star: boolean): Term[] {
  const parts = words(piece);
  if (parts.length === 0) return [];
  const bare = piece.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
  const joined = /^[\p{L}\p{N}]+(?:[_.\-:][\p{L}\p{N}]+)+$/u.test(bare) && !PROSE_COMPOUND.test(bare);
  if (parts.length > 1 && joined) {
    const alt = alternativeOf(piece, star);
    return alt ? [{ text: star ? `${piece}*` : piece, kind: star ? "prefix" : "phrase", stopword: false, alternatives: [alt] }] : [];
  }
  const out: Term[] = [];
  for (const [i, w] of parts.entries()) {
    const prefix = star && i === parts.length - 1;
    if (hasCjk(w) && !prefix) {
      out.push(...cjkTerms(w));
      continue;
    }
    const alt = alternativeOf(w, prefix);
    if (!alt) continue;
    const alternatives = [alt];
    // An identifier typed whole also finds its parts written apart ("uploadRetryCount" ~ "upload retry count").
    const split = alternativeOf(indexParts(originalCase(piece, w)).extra, prefix);
    if (split && split.tokens.length > 1) alternatives.push(split);
    const related: Alternative[] = [];
    if (!prefix && alt.tokens.length === 1) {
      for (const syn of synonymsOf(alt.tokens[0]!)) {
        const a = alternativeOf(syn, false);
        if (a) related.push(a);
      }
    }
    const isStop = !prefix && alt.tokens.length === 1 && isStopword(w);
    const shown = originalCase(piece, w);
    out.push({
      text: prefix ? `${shown}*` : shown,
      kind: prefix ? "prefix" : alt.tokens.length > 1 ? "phrase" : "word",
      stopword: isStop,
      alternatives,
      ...(related.length > 0 ? { related } : {}),
    });
  }
  return out;
}

/**
 * A run of CJK text is a sentence without spaces, not one word: each bigram
 * in it is a term of its own (`決済イベント` finds a turn saying `決済` and
 * `イベント` apart), so a question in Japanese or Chinese works as one in
 * English does, the turns holding more of it ranking first.
 */
function cjkTerms(run: string): Term[] {
  const alt = alternativeOf(run, false);
  if (!alt) return [];
  return alt.tokens.map((tok) => {
    const one = alternativeOf(tok, false)!;
    return { text: tok.length === 2 ? tok : tok, kind: "word" as const, stopword: isCjkStop(tok), alternatives: [one] };
  });
}

/**
 * Bigrams made only of kana particles and endings (の, は, でし...) or of
 * Chinese function characters and question words (的, 是, 怎么, 什么, 如何...)
 * say nothing of what is asked.
 */
function isCjkStop(tok: string): boolean {
  return /^[\p{Script=Hiragana}ー]+$/u.test(tok) || /^[的了是吗呢在和么怎什为如何哪谁吧啊呀]+$/u.test(tok);
}

/** Letters-only words joined by hyphens: a compound of prose, not an identifier (`spotter-a0y`, `utf-8` hold digits). */
const PROSE_COMPOUND = /^\p{L}+(?:-\p{L}+)+$/u;

/** The piece's own spelling of a folded word (camelCase is only visible before folding). */
function originalCase(piece: string, folded: string): string {
  const re = /[\p{L}\p{N}\p{M}]+/gu;
  for (const m of piece.matchAll(re)) if (m[0].toLowerCase() === folded) return m[0];
  return folded;
}

/** The tokens a piece of text becomes in the index (CJK runs as bigrams), as one alternative. */
function alternativeOf(text: string, prefix: boolean): Alternative | undefined {
  const tokens = words(indexBody(text)).slice(0, 64);
  if (tokens.length === 0) return undefined;
  return { tokens, stems: tokens.map(stem), prefix };
}

/**
 * The term that also matches where one of its other words occurs (a word of
 * its group in synonyms.ts). An engine widens a term only when the term
 * itself occurs in nothing the search could find: a query saying `bills`
 * finds the turn that said `invoices`, while a word the memory holds is never
 * diluted by its synonyms (tried on every query word, it cost keywords and
 * questions more than it found paraphrases: README, Search).
 */
export function widened(term: Term): Term {
  if (!term.related) return term;
  const { related: _related, ...rest } = term;
  return { ...rest, alternatives: [...term.alternatives, ...term.related] };
}

/**
 * The parsed query with the terms in `absent` widened, in its terms and in
 * all its words alike (the terms are the same objects), so an engine looks
 * each word up once whichever of them it searches. No stopword has synonyms,
 * so the words looked up are the terms' own.
 */
export function widenedQuery(parsed: ParsedQuery, absent: ReadonlySet<Term>): ParsedQuery {
  if (absent.size === 0) return parsed;
  const w = (t: Term) => (absent.has(t) ? widened(t) : t);
  return { terms: parsed.terms.map(w), all: parsed.all.map(w) };
}

/**
 * The query's words that no hit matched, when no hit matched any of them:
 * the search fell back to its stopwords (a query with a word that occurs
 * never comes back empty, DESIGN.md 11), so the hits share only common words
 * with it, and a door says so rather than let them pass for answers. Empty
 * when a hit matched a word, the query held only stopwords, or nothing hit.
 */
export function unmatchedWords(query: string, hits: readonly { matched: string[] }[]): string[] {
  if (hits.length === 0) return [];
  let terms: Term[];
  try {
    terms = parseQuery(query).terms;
  } catch {
    return [];
  }
  const asked = terms.filter((t) => !t.stopword).map((t) => t.text);
  const matched = new Set(hits.flatMap((h) => h.matched));
  return asked.some((w) => matched.has(w)) ? [] : asked;
}

/** "a", "a or b", "a, b or c": words for a sentence. */
export function orList(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}

/**
 * A query asking what the person at the keyboard said: `what did the user
 * say`, `which bead did I ask for`, `the user wanted it built in one go`.
 * Such a question is answered by a prompt, while the turns that hold its
 * words most are often the assistant's notes about it (`The user wants...`).
 */
const ASKS_USER =
  /\b(?:the user|i|we)\s+(?:(?:first|then|later|just|really|also|once|originally)\s+)?(?:say|said|says|ask|asked|asks|tell|told|type|typed|want|wanted|wants|wonder|wondered|pick|picked|choose|chose|object|objected|complain|complained|mean|meant|request|requested|insist|insisted|suggest|suggested)\b/i;

/** Whether a query asks what the user said (ASKS_USER), so prompts rank higher (rank.ts score). */
export function asksWhatUserSaid(query: string): boolean {
  return ASKS_USER.test(query);
}

/** Words placing what was said after something: `what did I type after...`, `what did I tell it once...`. */
const AFTER_SOMETHING = /\b(?:after|once|following|next)\b/i;

/** Whether a query asks what the user said after something (so the prompt after a match answers it: context.ts rankInContext). */
export function asksWhatUserSaidAfter(query: string): boolean {
  return asksWhatUserSaid(query) && AFTER_SOMETHING.test(query);
}

/** The FTS5 expression of a term: its alternatives, ORed. */
export function ftsOf(term: Term): string {
  const alts = term.alternatives.map((a) => `"${a.tokens.join(" ")}"${a.prefix ? "*" : ""}`);
  return alts.length === 1 ? alts[0]! : `(${alts.join(" OR ")})`;
}
