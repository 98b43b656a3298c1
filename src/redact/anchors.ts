/**
 * Where a rule's matches can start, read from its regex: the literal text
 * every match begins with (`ghp_`, `-----BEGIN`, `password`…), lower-cased.
 * The scanner finds these in one pass and runs a rule only where one of its
 * anchors stands, instead of running ninety regexes over every byte.
 * A regex with no literal start (card numbers) has no anchors: it runs over
 * the whole text.
 */

/** The index of the `)` that closes the group opened at `open`. */
function closeParen(s: string, open: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return s.length;
}

/** Splits a pattern at its top-level `|`. */
function alternatives(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      out.push(s.slice(from, i));
      from = i + 1;
    }
  }
  out.push(s.slice(from));
  return out;
}

const PLAIN = /[A-Za-z0-9_~"':=/ ,;<>@!#%&-]/;
const ESCAPED = /[./\\"'=:[\]{}()?*+|^$ -]/;

/** The literal characters a pattern starts with (stopping before one made optional by a quantifier). */
function literal(s: string, i: number): string {
  let out = "";
  while (i < s.length) {
    let ch: string;
    let len: number;
    if (s[i] === "\\" && ESCAPED.test(s[i + 1] ?? "")) [ch, len] = [s[i + 1]!, 2];
    else if (PLAIN.test(s[i]!)) [ch, len] = [s[i]!, 1];
    else break;
    const q = s[i + len];
    if (q === "?" || q === "*" || q === "{") break;
    out += ch;
    i += len;
    if (q === "+") break;
  }
  return out;
}

/** The literal starts of one alternative, or null when one is shorter than two characters. */
function starts(s: string): string[] | null {
  let i = 0;
  for (;;) {
    if (s.startsWith("\\b", i)) i += 2;
    else if (/^\(\?<?[!=]/.test(s.slice(i, i + 4))) i = closeParen(s, i) + 1;
    else break;
  }
  if (s.startsWith("(?:", i) || (s.startsWith("(?<", i) && !/^\(\?<[!=]/.test(s.slice(i, i + 4)))) {
    const end = closeParen(s, i);
    if ("?*{".includes(s[end + 1] ?? "x")) return null;
    const inner = s.slice(s.indexOf(s.startsWith("(?:", i) ? ":" : ">", i) + 1, end);
    return anchorsOf(inner);
  }
  const lit = literal(s, i);
  return lit.length >= 2 ? [lit.toLowerCase()] : null;
}

/** Every literal start of a pattern, lower-cased, or null when some match may start anywhere. */
export function anchorsOf(source: string): string[] | null {
  const out: string[] = [];
  for (const alt of alternatives(source)) {
    const a = starts(alt);
    if (a === null) return null;
    out.push(...a);
  }
  return [...new Set(out)];
}
