/**
 * U+0000 on PostgreSQL (DESIGN.md 12, issue 29): neither `text` nor `jsonb`
 * can hold it, while turn content, fact values, meta and link text may. Such
 * text is stored encoded, one character for one code: NUL as U+FDD0, and the
 * two noncharacters the code uses behind an escape, U+FDD1 (U+FDD0 as
 * U+FDD1 U+FDD0, U+FDD1 as U+FDD1 U+FDD1). Text holding none of the three,
 * nearly all of it, is stored as it is. The codes form a prefix code, so
 * `starts_with(encode(s), encode(p))` holds exactly when `s` starts with `p`
 * (link_list's prefix), and none is a letter or digit, so the trigram index
 * and ILIKE split words where the NUL split them. Names (session names,
 * fact keys, idempotency keys, object names) are never encoded: they refuse
 * NUL on every engine (src/schema/common.ts).
 */

/** U+0000 as stored. */
const NUL_CODE = "\uFDD0";
/** The escape before a stored U+FDD0 or U+FDD1 of the text itself. */
const ESCAPE = "\uFDD1";

const NEEDS_ENCODING = /[\u0000\uFDD0\uFDD1]/;
const NEEDS_DECODING = /[\uFDD0\uFDD1]/;

/** Text as PostgreSQL's `text` can hold it; decodeText gives it back exactly. */
export function encodeText(s: string): string {
  if (!NEEDS_ENCODING.test(s)) return s;
  return s.replace(/[\u0000\uFDD0\uFDD1]/g, (c) => (c === "\u0000" ? NUL_CODE : ESCAPE + c));
}

/**
 * The text encodeText was given. A lone escape at the end (a window that
 * `left(text, n)` cut between an escape and its character) is dropped: the
 * window ends one character earlier.
 */
export function decodeText(s: string): string {
  if (!NEEDS_DECODING.test(s)) return s;
  return s.replace(/\uFDD1[\uFDD0\uFDD1]?|\uFDD0/g, (m) => (m === NUL_CODE ? "\u0000" : m.slice(1)));
}

/** Text that may be NULL in a row, decoded. */
export function decodeNullable(s: string | null): string | null {
  return s === null ? null : decodeText(s);
}

/**
 * JSON text (as JSON.stringify writes it) as `jsonb` can hold it: every
 * string, keys included, encoded as encodeText does. JSON.stringify writes
 * U+0000 as the escape `\u0000` and never writes the noncharacters escaped;
 * escapes are read left to right so that `\\u0000` (a backslash, then the
 * text "u0000") is left alone.
 */
export function encodeJson(json: string): string {
  if (!json.includes("\\u0000") && !NEEDS_DECODING.test(json)) return json;
  return json.replace(/\\(?:\\|u0000)|[\uFDD0\uFDD1]/g, (m) => (m === "\\\\" ? m : m === "\\u0000" ? NUL_CODE : ESCAPE + m));
}

/** A value read from a `jsonb` column that encodeJson wrote, with every string and key decoded; unchanged parts are not copied. */
export function decodeJson<T>(v: T): T {
  return decodeValue(v) as T;
}

function decodeValue(v: unknown): unknown {
  if (typeof v === "string") return decodeText(v);
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const d = decodeValue(v[i]);
      if (d !== v[i]) (out ??= v.slice())[i] = d;
    }
    return out ?? v;
  }
  const keys = Object.keys(v);
  const obj = v as Record<string, unknown>;
  let out: [string, unknown][] | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const dk = decodeText(k);
    const dx = decodeValue(obj[k]);
    if (out === undefined && (dk !== k || dx !== obj[k])) out = keys.slice(0, i).map((p) => [p, obj[p]]);
    out?.push([dk, dx]);
  }
  // fromEntries defines each key as an own property, a key named __proto__ too.
  return out === undefined ? v : Object.fromEntries(out);
}
