/** The shapes shared by the redaction rules and the scanner that runs them. */

/** One secret found in a text: where it lies and what it is. */
export interface Hit {
  kind: string;
  start: number;
  end: number;
}

/**
 * A secret shape. The scanner runs the regex `source` (with `flags`, plus
 * `d` for group spans) at the rule's anchors, or over the whole text;
 * each match becomes a hit on its named group `s` (the rest of the match,
 * a name or a host, is kept), or on the whole match when there is no `s`.
 * `pick` replaces that default: it may reject a match (placeholders, Luhn,
 * entropy) by returning null, or point at another span or kind.
 */
export interface Rule {
  kind: string;
  /** The regex, compiled by the scanner only when the text gives it something to look at (a hook process is short-lived). */
  source: string;
  /** "" or "i". */
  flags: string;
  pick?: (m: RegExpExecArray, text: string) => Hit | null;
  /** Lower-case literals a match starts with (anchors.ts); none: the regex runs over the whole text. */
  anchors: readonly string[];
  /** How many characters before its anchor a match starts (`\dQ~`: 1). */
  back: number;
}

/** The hit on a match's group `s`, or on the whole match. */
export function defaultHit(kind: string, m: RegExpExecArray): Hit {
  const span = m.indices?.groups?.s;
  if (span) return { kind, start: span[0], end: span[1] };
  return { kind, start: m.index, end: m.index + m[0].length };
}
