/** "Did you mean": the closest known name to a mistyped one, as git and gh offer. */

/** Levenshtein distance between two short strings. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The known name nearest to `typed`, when it is near enough to be a typo,
 * `typed` starts it, or `typed` is one of its dash-separated words (`prefix`
 * -> `session-prefix`, the first such name known). Case is not a typo of its own.
 */
export function closest(typed: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const t = typed.toLowerCase();
  for (const k of known) {
    const name = k.toLowerCase();
    const d = name === t ? 0 : name.startsWith(t) && t.length >= 2 ? 0.5 : t.length >= 3 && `-${name}-`.includes(`-${t}-`) ? 0.75 : distance(t, name);
    if (d < bestD) [best, bestD] = [k, d];
  }
  // A third of the word may be wrong: serach -> search, sesion -> session, but not x -> read.
  return best !== undefined && bestD <= Math.max(1, Math.floor(typed.length / 3)) ? best : undefined;
}

/** The "; did you mean X?" tail of an error, X as `render` writes it, or "". */
export function didYouMean(typed: string, known: Iterable<string>, render: (s: string) => string = (s) => s): string {
  const c = closest(typed, known);
  return c === undefined ? "" : `; did you mean ${render(c)}?`;
}
