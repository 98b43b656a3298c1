/** Search hits highlighted from `matched` (the query words each hit holds), as text pieces and `<mark>`s: nothing is parsed as HTML. */

/** A regular expression for the matched words: a trailing `*` is a prefix, quotes are dropped. */
export function matchPattern(matched: readonly string[]): RegExp | undefined {
  const words = matched
    .map((w) => w.replace(/^"+|"+$/g, ""))
    .filter((w) => /[\p{L}\p{N}]/u.test(w))
    .map((w) => {
      const prefix = w.endsWith("*");
      const body = (prefix ? w.slice(0, -1) : w).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      // A stemmed search finds "running" for "run": mark the word's continuation too.
      return `${body}[\\p{L}\\p{N}]*`;
    });
  if (words.length === 0) return undefined;
  return new RegExp(`(${words.join("|")})`, "giu");
}

/** The snippet with its matches marked. */
export function Highlighted(props: { text: string; matched: readonly string[] }) {
  const re = matchPattern(props.matched);
  if (!re) return <>{props.text}</>;
  const parts = props.text.split(re);
  // split with one capture group: odd indexes are the matches.
  return <>{parts.map((p, i) => (i % 2 === 1 ? <mark>{p}</mark> : p))}</>;
}
