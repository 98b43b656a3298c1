/**
 * The text the word index holds for a turn (DESIGN.md 11, "Index"): what a
 * person reads, not serialized JSON. The same function runs on queries, so a
 * query word and the index agree on where words begin and end.
 *
 * - JSON lines (tool inputs, metadata) are indexed as their decoded string
 *   values; escapes left in other text (`\n`, `\"`, `\u00e9`) are decoded, so
 *   no `n` is glued onto the next word.
 * - Runs of CJK characters, written without spaces, become overlapping
 *   bigrams (a phrase of them finds any substring of two or more characters),
 *   and each character is also indexed alone, after the text.
 * - Identifiers written in camelCase or with digits (`uploadRetryCount`,
 *   `http2Server`) are indexed whole and, after the text, as their parts.
 *
 * Deterministic and versioned: forget deletes a row from the index by
 * recomputing this text, so a change here needs a migration that rebuilds
 * the index.
 */

/** Longest JSON line that is parsed to take its strings (longer ones are unescaped in place). */
const JSON_LINE_MAX = 1 << 20;

/** Han, Hiragana, Katakana (and their marks): scripts written without spaces between words. */
const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}ー々〆";
const CJK_RUN = new RegExp(`[${CJK}]+`, "gu");
const CJK_ONE = new RegExp(`[${CJK}]`, "u");
/** A letter or digit directly beside a CJK character: a boundary unicode61 would not see. */
const CJK_EDGE = new RegExp(`(?<=[${CJK}])(?=[\\p{L}\\p{N}])(?![${CJK}])|(?<=[\\p{L}\\p{N}])(?<![${CJK}])(?=[${CJK}])`, "gu");
/**
 * A word (a run of letters and digits) with an inner step that splits an
 * identifier: lower to upper, an acronym's end, letter to digit or back. One
 * pass finds only these words (most words have no step): each attempt starts
 * at a word's start and stops at its end, so a 3 MiB run of one letter costs
 * two passes, not one per letter.
 */
const STEPPED_WORD = /(?<![\p{L}\p{N}])[\p{L}\p{N}]*?(?:\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{L}\p{N}|\p{N}\p{L})[\p{L}\p{N}]*/gu;
/** Longer words are not identifiers (base64, hashes, runs of one letter): not split. */
const IDENTIFIER_MAX = 64;
const PART = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+|\p{L}+/gu;
const ESCAPE = /\\(?:u([0-9a-fA-F]{4})|([nrtbf])|(["\\/]))/g;

/** True when a text holds a CJK character. */
export function hasCjk(text: string): boolean {
  return CJK_ONE.test(text);
}

/** The text to index for `text`: its body, then a line of extra tokens (CJK characters, identifier parts). */
export function indexText(text: string): string {
  const { body, extra } = indexParts(text);
  return extra.length > 0 ? `${body}\n${extra}` : body;
}

/** The body of the index text alone: how one word of a query is tokenized. */
export function indexBody(text: string): string {
  return indexParts(text).body;
}

/** The body (the text as a person reads it, CJK as bigrams) and the extra tokens. */
export function indexParts(text: string): { body: string; extra: string } {
  const decoded = decodeJsonLines(text);
  const extra: string[] = [];
  let out = decoded.includes("\\") ? decoded.replace(ESCAPE, unescapeOne) : decoded;
  for (const m of out.matchAll(STEPPED_WORD)) {
    const word = m[0];
    if (word.length > IDENTIFIER_MAX) continue;
    const parts = word.match(PART);
    if (parts && parts.length > 1) extra.push(parts.join(" "));
  }
  if (CJK_ONE.test(out)) {
    out = out.replace(CJK_EDGE, " ").replace(CJK_RUN, (run) => {
      const chars = Array.from(run);
      for (const c of chars) extra.push(c);
      if (chars.length === 1) return ` ${run} `;
      const grams: string[] = [];
      for (let i = 0; i + 1 < chars.length; i++) grams.push(chars[i]! + chars[i + 1]!);
      return ` ${grams.join(" ")} `;
    });
  }
  return { body: out, extra: extra.join(" ") };
}

/** Lines that are whole JSON values are replaced by their string values (keys dropped). */
function decodeJsonLines(text: string): string {
  if (!text.includes("{") && !text.includes("[")) return text;
  let changed = false;
  const lines = text.split("\n").map((line) => {
    const t = line.trimStart();
    if ((t[0] !== "{" && t[0] !== "[") || t.length > JSON_LINE_MAX) return line;
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch {
      return line;
    }
    const strings: string[] = [];
    collectStrings(value, strings, 0);
    changed = true;
    return strings.join("\n");
  });
  return changed ? lines.join("\n") : text;
}

function collectStrings(v: unknown, out: string[], depth: number): void {
  if (depth > 64) return;
  if (typeof v === "string") out.push(v);
  else if (typeof v === "number" || typeof v === "boolean") out.push(String(v));
  else if (Array.isArray(v)) for (const x of v) collectStrings(x, out, depth + 1);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) collectStrings(x, out, depth + 1);
}

function unescapeOne(_m: string, hex: string | undefined, letter: string | undefined, literal: string | undefined): string {
  if (hex !== undefined) {
    const c = String.fromCharCode(Number.parseInt(hex, 16));
    // A lone surrogate would make the text ill-formed; a space keeps the word boundary.
    return c >= "\ud800" && c <= "\udfff" ? " " : c;
  }
  if (letter !== undefined) return " ";
  return literal === "\\" ? " " : literal!;
}
