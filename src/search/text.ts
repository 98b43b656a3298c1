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
  steppedWords(out, (word) => {
    const parts = word.match(PART);
    if (parts && parts.length > 1) extra.push(parts.join(" "));
  });
  if (CJK_ONE.test(out)) {
    // The run's spaces part it from letters or digits written against it, a boundary unicode61 would not see.
    out = out.replace(CJK_RUN, (run) => {
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

/** Character classes of the identifier scan: not a letter or digit, upper- and lower-case letter, other letter, digit. */
const OTHER = 0;
const UPPER = 1;
const LOWER = 2;
const LETTER = 3;
const DIGIT = 4;
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_CLASS[c] = c >= 65 && c <= 90 ? UPPER : c >= 97 && c <= 122 ? LOWER : c >= 48 && c <= 57 ? DIGIT : OTHER;
/** Classes of code points past ASCII, found once each (0: not yet, else class + 1). */
const BMP_CLASS = new Uint8Array(0x10000);
const ASTRAL_CLASS = new Map<number, number>();

/** The class of a code point past ASCII (steppedWords looks ASCII up itself). */
function classOf(cp: number): number {
  if (cp < 0x10000) {
    const known = BMP_CLASS[cp]!;
    if (known !== 0) return known - 1;
    const cls = unicodeClass(cp);
    BMP_CLASS[cp] = cls + 1;
    return cls;
  }
  let cls = ASTRAL_CLASS.get(cp);
  if (cls === undefined) ASTRAL_CLASS.set(cp, (cls = unicodeClass(cp)));
  return cls;
}

function unicodeClass(cp: number): number {
  const ch = String.fromCodePoint(cp);
  if (/\p{Lu}/u.test(ch)) return UPPER;
  if (/\p{Ll}/u.test(ch)) return LOWER;
  if (/\p{L}/u.test(ch)) return LETTER;
  if (/\p{N}/u.test(ch)) return DIGIT;
  return OTHER;
}

/** A character past ASCII: steppedWords takes its loop over code points. */
const NON_ASCII = /[^\u0000-\u007f]/;
/**
 * An ASCII word (a run of letters and digits, after the text's start or a
 * character that is neither) holding a step as steppedWords' loop reads one:
 * lower to upper, upper upper lower, letter to digit or back. The word is
 * group 1, taken to its end; one that holds no step is passed over.
 */
const ASCII_STEPPED = /(?:^|[^A-Za-z0-9])([A-Za-z0-9]*?(?:[a-z][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z][0-9]|[0-9][A-Za-z])[A-Za-z0-9]*)/g;

/**
 * Calls `found` with each word (a run of letters and digits) of at most
 * IDENTIFIER_MAX characters that has an inner step splitting an identifier:
 * lower to upper, an acronym's end (upper, upper, lower), letter to digit or
 * back. A loop over char codes, one pass, no backtracking: a unicode regex
 * doing the same cost more than half of indexText on code and prose.
 */
function steppedWords(text: string, found: (word: string) => void): void {
  if (!NON_ASCII.test(text)) {
    // ASCII text: the regex engine finds the stepped words itself (its compiled matcher, where the loop below runs in
    // a hook's interpreter: issue 32, the largest part of a 64-entry run's index text). The same words, in order.
    ASCII_STEPPED.lastIndex = 0;
    for (let m = ASCII_STEPPED.exec(text); m !== null; m = ASCII_STEPPED.exec(text)) if (m[1]!.length <= IDENTIFIER_MAX) found(m[1]!);
    return;
  }
  let start = -1;
  let stepped = false;
  let prev = OTHER;
  let prev2 = OTHER;
  const n = text.length;
  for (let i = 0; i <= n; ) {
    const c = i < n ? text.charCodeAt(i) : 32;
    // A high surrogate starts an astral code point (a lone one is no letter).
    const cp = c >= 0xd800 && c <= 0xdbff ? text.codePointAt(i)! : c;
    const cls = cp < 128 ? ASCII_CLASS[cp]! : classOf(cp);
    if (cls === OTHER) {
      if (start >= 0 && stepped && i - start <= IDENTIFIER_MAX) found(text.slice(start, i));
      start = -1;
      stepped = false;
      prev = prev2 = OTHER;
    } else {
      if (start < 0) start = i;
      else if (!stepped) {
        stepped =
          (prev === LOWER && cls === UPPER) ||
          (prev2 === UPPER && prev === UPPER && cls === LOWER) ||
          (prev !== DIGIT && cls === DIGIT) ||
          (prev === DIGIT && cls !== DIGIT);
      }
      prev2 = prev;
      prev = cls;
    }
    i += cp > 0xffff ? 2 : 1;
  }
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
