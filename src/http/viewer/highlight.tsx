/** @jsxImportSource hono/jsx */
/**
 * Search hits highlighted from `matched` (the query words each hit holds).
 * The engine's snippet marks each match `[like this]` (src/search/snippet.ts);
 * a bracketed word becomes a `<mark>` when it is one of `matched` (folded
 * and stemmed as the index matched it, src/search/tokens.ts, or by a `word*`
 * prefix), so a literal `[x]` in a turn stays as it was. Nothing is parsed
 * as HTML.
 */
import { fold, stem } from "../../search/tokens.ts";

/** Whether a marked word is one of the matched query words. */
export function isMatched(word: string, matched: readonly string[]): boolean {
  const w = fold(word);
  return matched.some((m) => {
    const q = fold(m.replace(/^"+|"+$/g, ""));
    if (q.endsWith("*")) return w.startsWith(q.slice(0, -1));
    return w === q || stem(w) === stem(q);
  });
}

/** The snippet as text pieces and marks. */
export function Highlighted(props: { text: string; matched: readonly string[] }) {
  // split with one capture group: odd indexes are the bracketed words.
  const parts = props.text.split(/\[([^[\]\s]+)\]/u);
  return <>{parts.map((p, i) => (i % 2 === 0 ? p : isMatched(p, props.matched) ? <mark>{p}</mark> : `[${p}]`))}</>;
}
