/**
 * The word index of the PostgreSQL engine (DESIGN.md 11): a `tsvector` of the
 * Porter stems of a row's index text, made here by the tokenizer and stemmer
 * the ranking uses (src/search/tokens.ts) and written as a tsvector literal;
 * queries are tsquery literals of the same stems. No text-search
 * configuration stands in between: PostgreSQL's parser splits words its own
 * way and its `english` configuration stems with Snowball, whose stems differ
 * from Porter's in places, so the index and the matcher that counts words in
 * a hit (src/search/match.ts) would disagree about which rows hold a word.
 * Positions are kept, so phrases are `<->` queries; GIN indexes the column.
 */
import type { Alternative, Term } from "../../search/query.ts";
import { indexText } from "../../search/text.ts";
import { tokenize } from "../../search/tokens.ts";

/** PostgreSQL keeps positions up to 16383 and at most 256 per lexeme (https://www.postgresql.org/docs/current/datatype-textsearch.html). */
const MAX_POSITION = 16383;
const MAX_POSITIONS = 256;
/** A tsvector is at most 1 MB; distinct stems beyond this many bytes are left out of the index (the trigram index still holds the text). */
const MAX_LEXEME_BYTES = 512 * 1024;

/** A tsvector literal, quoted as its input syntax wants. */
function lexeme(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

/** The tsvector literal of a row's text: each stem with its positions. */
export function wordsOf(text: string): string {
  const positions = new Map<string, number[]>();
  let bytes = 0;
  let pos = 0;
  for (const t of tokenize(indexText(text))) {
    pos = Math.min(pos + 1, MAX_POSITION);
    let list = positions.get(t.stem);
    if (!list) {
      bytes += Buffer.byteLength(t.stem, "utf8") + 8;
      if (bytes > MAX_LEXEME_BYTES || Buffer.byteLength(t.stem, "utf8") > 2000) continue;
      list = [];
      positions.set(t.stem, list);
    }
    if (list.length < MAX_POSITIONS && list[list.length - 1] !== pos) list.push(pos);
  }
  return [...positions].map(([s, ps]) => `${lexeme(s)}:${ps.join(",")}`).join(" ");
}

/** The tsquery of one alternative: its stems in a row, the last a prefix when it is one. */
function alternativeQuery(a: Alternative): string {
  const parts = a.stems.map((s, i) => (a.prefix && i === a.stems.length - 1 ? `${lexeme(a.tokens[i]!)}:*` : lexeme(s)));
  return parts.length === 1 ? parts[0]! : `(${parts.join(" <-> ")})`;
}

/** The tsquery of a term: any of its alternatives. */
export function termQuery(term: Term): string {
  return term.alternatives.map(alternativeQuery).join(" | ");
}
