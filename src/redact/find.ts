/**
 * Where the secrets of a text lie, in the text as written and in every level
 * of escaping it decodes to (escapes.ts), each level scanned again only
 * around what its decoding changed. A hit found in a decoded view is
 * mapped back to the original, and every hit is cut to whole escape
 * sequences of the deepest level, so replacing it keeps each level's
 * escaping valid (a `\"` is never cut in half).
 */
import { type Escaped, type EscapedView, escapeCutter, escapedViews } from "./escapes.ts";
import { scan } from "./scan.ts";
import type { Hit, Rule } from "./types.ts";

/** Every hit over `text` and its decoded views, in the original's offsets, merged and sorted. */
export function findAll(text: string, rules: readonly Rule[], escaped: Escaped = escapedViews(text)): Hit[] {
  const { views, inner } = escaped;
  const raw = scan(text, rules, { skip: inner });
  if (views.length === 0) return raw;
  const all: Hit[] = [...raw];
  for (const { text: t, at, inner: deeper } of views) {
    for (const h of scan(t, rules, { skip: deeper })) all.push({ kind: h.kind, start: at[h.start]!, end: at[h.end]! });
  }
  return settle(all, views);
}

/**
 * Spans cut to whole escape sequences, then overlaps merged; the first hit
 * at a place names it. A span that ends inside an escape took its backslash
 * for part of the secret (`TOKEN=\"abc\"` read as written): the escape
 * belongs to what follows, so the span stops before it.
 */
export function settle(spans: Hit[], views: readonly EscapedView[]): Hit[] {
  const cutter = escapeCutter(views);
  const cut: (Hit & { i: number })[] = [];
  for (let i = 0; i < spans.length; i++) {
    const h = spans[i]!;
    const [start, end] = cutter(h.start, h.end);
    if (end > start) cut.push({ kind: h.kind, start, end, i });
  }
  cut.sort((a, b) => a.start - b.start || a.i - b.i);
  const out: Hit[] = [];
  for (const h of cut) {
    const last = out[out.length - 1];
    if (last && h.start < last.end) last.end = Math.max(last.end, h.end);
    else out.push({ kind: h.kind, start: h.start, end: h.end });
  }
  return out;
}
