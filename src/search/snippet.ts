/**
 * A hit's snippet: about SNIPPET_CHARS of the turn around its best match,
 * query words marked `[like this]`. Works on a bounded window of the turn
 * (never the whole of a 3 MiB turn), so its cost does not grow with the
 * turn's size (DESIGN.md 11, "Cost").
 */
import { termSpans } from "./match.ts";
import type { Term } from "./query.ts";

/** Characters of context a snippet shows. */
export const SNIPPET_CHARS = 240;
/** Matches looked at when choosing where the snippet goes. */
const MAX_HITS = 256;

/**
 * The snippet of `text` (a window of the turn, from its start; `more` when
 * the turn goes on past it). `weights` ranks the terms: the snippet is centred
 * on the place where the most weight of distinct terms lies close together.
 */
export function snippet(text: string, opts: { terms: readonly Term[]; weights: readonly number[]; more: boolean }): string {
  const { terms, weights, more } = opts;
  // Enough to choose a place: a window full of matches needs no more.
  const hits = termSpans(terms, text, MAX_HITS);
  let from = 0;
  if (hits.length > 0) {
    // The hit whose neighbourhood holds the most weight of distinct terms.
    let best = 0;
    let bestScore = -1;
    for (let a = 0, b = 0; a < hits.length; a++) {
      while (b < hits.length && hits[b]!.start - hits[a]!.start < SNIPPET_CHARS * 0.6) b++;
      // Terms seen, as bits (a query has at most 32 terms).
      let seen = 0;
      let score = 0;
      for (let k = a; k < b; k++) {
        const bit = 1 << hits[k]!.term;
        if (seen & bit) continue;
        seen |= bit;
        score += weights[hits[k]!.term] ?? 1;
      }
      if (score > bestScore) {
        bestScore = score;
        best = a;
      }
    }
    from = Math.max(0, hits[best]!.start - Math.floor(SNIPPET_CHARS / 4));
  }
  let to = Math.min(text.length, from + SNIPPET_CHARS);
  // Whole words at both ends, and never half a surrogate pair.
  if (from > 0) {
    const ws = text.slice(from, from + 24).search(/\s/);
    if (ws >= 0) from += ws + 1;
  }
  if (to < text.length) {
    const back = text.slice(Math.max(from, to - 24), to).search(/\s\S*$/);
    if (back >= 0) to = Math.max(from, to - 24) + back;
  }
  let out = "";
  let at = from;
  for (const h of hits) {
    if (h.start < from || h.end > to) continue;
    out += `${text.slice(at, h.start)}[${text.slice(h.start, h.end)}]`;
    at = h.end;
  }
  out += text.slice(at, to);
  out = out.replace(/\s+/g, " ").trim().toWellFormed();
  return `${from > 0 ? "…" : ""}${out}${to < text.length || more ? "…" : ""}`;
}
