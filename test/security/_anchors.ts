/**
 * Where a redaction rule's matches can start, read from its regex: the
 * literal text every match begins with (`ghp_`, `-----BEGIN`, `password`…),
 * lower-cased. The scanner (src/redact/scan.ts) runs a rule only where one
 * of its anchors stands, so a rule whose written anchors miss a start its
 * regex allows would silently never fire there: the security suite checks
 * every rule's anchors against this reading of its regex.
 */

/** `s` with escapes and character classes blanked (same length), so only groups and `|` stay structural. */
function mask(s: string): string {
  return s.replace(/\\.|\[(?:\\.|[^\]\\])*\]/g, (m) => "_".repeat(m.length));
}

/** A masked pattern with every group blanked too, innermost first. */
function flatten(masked: string): string {
  for (;;) {
    const next = masked.replace(/\([^()]*\)/g, (m) => "_".repeat(m.length));
    if (next === masked) return masked;
    masked = next;
  }
}

/** The index of the `)` that closes the group opened at `open` (in a masked pattern). */
function closeParen(masked: string, open: number): number {
  const end = flatten(masked.slice(open + 1)).indexOf(")");
  return end < 0 ? masked.length : open + 1 + end;
}

/** Splits a pattern at its top-level `|`. */
function alternatives(s: string): string[] {
  const flat = flatten(mask(s));
  const out: string[] = [];
  let from = 0;
  for (let bar = flat.indexOf("|"); bar >= 0; bar = flat.indexOf("|", bar + 1)) {
    out.push(s.slice(from, bar));
    from = bar + 1;
  }
  out.push(s.slice(from));
  return out;
}

/** Characters that stand for themselves in a pattern, and those that do once escaped. */
const PLAIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_~\"':=/ ,;<>@!#%&-";
const ESCAPED = "./\\\"'=:[]{}()?*+|^$ -";

/** The literal characters a pattern starts with (stopping before one made optional by a quantifier). */
function literal(s: string, i: number): string {
  let out = "";
  while (i < s.length) {
    let ch: string;
    let len: number;
    if (s[i] === "\\" && i + 1 < s.length && ESCAPED.includes(s[i + 1]!)) [ch, len] = [s[i + 1]!, 2];
    else if (PLAIN.includes(s[i]!)) [ch, len] = [s[i]!, 1];
    else break;
    const q = s[i + len];
    if (q === "?" || q === "*" || q === "{") break;
    out += ch;
    i += len;
    if (q === "+") break;
  }
  return out;
}

/** Whether a lookahead or lookbehind opens at `i`. */
function lookaround(s: string, i: number): boolean {
  return s.startsWith("(?=", i) || s.startsWith("(?!", i) || s.startsWith("(?<=", i) || s.startsWith("(?<!", i);
}

/** The literal starts of one alternative, or null when one is shorter than two characters. */
function starts(s: string): string[] | null {
  const masked = mask(s);
  let i = 0;
  for (;;) {
    if (s.startsWith("\\b", i)) i += 2;
    else if (lookaround(s, i)) i = closeParen(masked, i) + 1;
    else break;
  }
  if (s.startsWith("(?:", i) || s.startsWith("(?<", i)) {
    const end = closeParen(masked, i);
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
