/**
 * The text every section writes and searches: about 300 bytes of memory-like
 * prose per entry, deterministic per index, with planted words found in
 * exactly one entry each so recall can be checked, not assumed.
 */

/** The vocabulary of the filler text: every one of these is a "common word". */
export const WORDS =
  "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu memory agent session store search commit branch merge test build deploy".split(
    " ",
  );

/** About 300 bytes of text from the fixed vocabulary (or `words`), deterministic per i. */
export function filler(i: number, words: readonly string[] = WORDS): string {
  let s = "";
  let x = (i * 2654435761) >>> 0;
  while (s.length < 290) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += `${words[x % words.length]} `;
  }
  return s.trimEnd();
}

/**
 * The word planted in entry k. The trailing `x` keeps it unique under
 * substring search too (the reference server matches substrings): no planted
 * word is a substring of another, and none occurs in the filler.
 */
export function plantedWord(k: number): string {
  return `planted${k}x`;
}

/** Entry i's text: the filler, plus its planted word when i is one of every `every` entries. */
export function entryText(i: number, every: number): string {
  return i % every === 0 ? `${filler(i)} ${plantedWord(i)}` : filler(i);
}

/** The query of the q-th planted-word search among the first `size` entries: each planted entry in turn. */
export function plantedTarget(q: number, size: number, every: number): number {
  const planted = Math.ceil(size / every);
  // A stride coprime with most counts spreads the queries over old and new entries alike.
  return ((q * 7919) % planted) * every;
}
