/**
 * Text as it decodes (DESIGN.md 18): a tool that prints JSON, Codex's
 * `function_call_output` and every log of a JSON string write `\n`, `\"` and
 * `\u003d` where the secret's text had a line break, a quote or an `=`, and
 * a string escaped twice writes `\\n` and `\\\"`. The scanner's rules read
 * plain text, so the text around each escape is decoded into a view, with
 * the place in the original each of the view's characters came from; a view
 * that still holds escapes is decoded again, up to MAX_LEVELS. A hit in a
 * view covers whole escape sequences of the original, so the marker that
 * replaces it leaves the escaping valid at every level.
 *
 * Only windows around escapes are decoded: captured text holds a few
 * (`"\n"` in a tool call's JSON) far more often than it is made of them, and
 * the rest reads the same decoded or not.
 */

/** A decoded window: its text, and for each of its characters (and its end) the offset in the original text it starts at. */
export interface EscapedView {
  text: string;
  /** `at[i]` is where character `i` of `text` starts in the original; `at[text.length]` is where the window ends there. */
  at: Int32Array;
  /** 1 for text decoded once, 2 for twice, ... */
  level: number;
  /** The windows of this view decoded once more (sorted [start, end) pairs, in this view's offsets): scanned there instead. */
  inner: number[];
}

/** A text's decoded windows, and where in it they lie (sorted [start, end) pairs): the text is scanned as written only elsewhere. */
export interface Escaped {
  views: EscapedView[];
  inner: number[];
}

/** How many levels are decoded: once (JSON in a string), twice (JSON in JSON in a string), and one more for logs of those. */
export const MAX_LEVELS = 3;

/**
 * How far on each side of an escape a secret is looked for in the decoded
 * text: a secret an escape hides has its name or prefix a little before it,
 * or holds it. A longer value an escape cuts is still cut in a window.
 */
export const WINDOW = 256;

const BACKSLASH = 92;

/** The value of one hex digit, or -1. */
function hex(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const f = c | 32;
  return f >= 97 && f <= 102 ? f - 87 : -1;
}

/** The value of `n` hex digits at `i`, or -1 when one of them is not a hex digit. */
function hexAt(text: string, i: number, n: number): number {
  if (i + n > text.length) return -1;
  let v = 0;
  for (let k = 0; k < n; k++) {
    const d = hex(text.charCodeAt(i + k));
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** What `\` followed by character code `c` decodes to, or -1 when it is no escape (`\d` in a regex stays as it is). */
function simple(c: number): number {
  switch (c) {
    case 34: // \"
    case 39: // \'
    case 47: // \/
    case BACKSLASH:
      return c;
    case 110: // \n
      return 10;
    case 114: // \r
      return 13;
    case 116: // \t
      return 9;
    case 98: // \b
      return 8;
    case 102: // \f
      return 12;
    default:
      return -1;
  }
}

/**
 * The escape at `i` (a backslash), as the character it stands for times 8
 * plus its width (2, 4 or 6), or -1 when it is none. One number, not an
 * object: a JSON-escaped MiB holds tens of thousands of escapes.
 */
function escapeAt(text: string, i: number): number {
  const c = text.charCodeAt(i + 1);
  const value = simple(c);
  if (value >= 0) return value * 8 + 2;
  // JSON's \uXXXX; \xHH of JS and Python string literals.
  if (c === 117) {
    const u = hexAt(text, i + 2, 4);
    return u < 0 ? -1 : u * 8 + 6;
  }
  if (c === 120) {
    const x = hexAt(text, i + 2, 2);
    return x < 0 ? -1 : x * 8 + 4;
  }
  return -1;
}

/** The windows of `text` around its escapes, merged: pairs of [start, end); none when it holds no escape. */
function windowsOf(text: string): number[] {
  const windows: number[] = [];
  for (let i = text.indexOf("\\"); i >= 0 && i < text.length - 1; ) {
    const e = escapeAt(text, i);
    if (e < 0) {
      i = text.indexOf("\\", i + 1);
      continue;
    }
    const width = e & 7;
    const w = windows.length;
    if (w > 0 && i - WINDOW <= windows[w - 1]!) windows[w - 1] = Math.min(text.length, i + width + WINDOW);
    else windows.push(Math.max(0, i - WINDOW), Math.min(text.length, i + width + WINDOW));
    i = text.indexOf("\\", i + width);
  }
  return windows;
}

/** `text[from, to)` with one level of escapes decoded, each character mapped to its offset in `text`. */
function decodeRange(text: string, from: number, to: number): { text: string; at: Int32Array } {
  const parts: string[] = [];
  const at = new Int32Array(to - from + 1);
  let out = 0;
  let run = from;
  for (let i = text.indexOf("\\", from); i >= 0 && i < to - 1; ) {
    const e = escapeAt(text, i);
    if (e < 0 || i + (e & 7) > to) {
      i = text.indexOf("\\", i + 1);
      continue;
    }
    for (let k = run; k < i; k++) at[out++] = k;
    at[out++] = i;
    parts.push(text.slice(run, i), String.fromCharCode(e >> 3));
    run = i + (e & 7);
    i = text.indexOf("\\", run);
  }
  for (let k = run; k < to; k++) at[out++] = k;
  at[out] = to;
  parts.push(text.slice(run, to));
  return { text: parts.join(""), at: at.subarray(0, out + 1) };
}

/**
 * The decoded windows of `text`, level by level (each level's in order and
 * disjoint), every offset mapped to the original; none when it holds no
 * escape, which for most text costs one `indexOf`.
 */
export function escapedViews(text: string): Escaped {
  if (text.indexOf("\\") < 0) return { views: [], inner: [] };
  const views: EscapedView[] = [];
  const top = { text, at: null as Int32Array | null, inner: [] as number[] };
  let pieces = [top];
  for (let level = 1; level <= MAX_LEVELS && pieces.length > 0; level++) {
    const next: typeof pieces = [];
    for (const piece of pieces) {
      const windows = windowsOf(piece.text);
      piece.inner = windows;
      for (let w = 0; w < windows.length; w += 2) {
        const d = decodeRange(piece.text, windows[w]!, windows[w + 1]!);
        const map = piece.at;
        if (map) for (let i = 0; i < d.at.length; i++) d.at[i] = map[d.at[i]!]!;
        const view: EscapedView = { text: d.text, at: d.at, level, inner: [] };
        views.push(view);
        if (level < MAX_LEVELS && d.text.includes("\\")) next.push(view);
      }
    }
    pieces = next;
  }
  return { views, inner: top.inner };
}

/**
 * A function cutting `[start, end)` to whole escape sequences of every view
 * that holds its ends: the start moves forward and the end back to the
 * nearest place a decoded character starts. Levels are cut shallowest first,
 * and a deeper level's places are a subset of the one above it, so the last
 * cut holds for all.
 */
export function escapeCutter(views: readonly EscapedView[]): (start: number, end: number) => [number, number] {
  const levels: EscapedView[][] = [];
  for (const v of views) (levels[v.level - 1] ??= []).push(v);
  const holding = (group: EscapedView[], x: number): EscapedView | undefined => {
    let lo = 0;
    let hi = group.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (group[mid]!.at[0]! <= x) lo = mid;
      else hi = mid - 1;
    }
    const v = group[lo];
    return v && v.at[0]! < x && x < v.at[v.at.length - 1]! ? v : undefined;
  };
  return (start, end) => {
    for (const group of levels) {
      const a = holding(group, start);
      if (a) start = placeAfter(a.at, start);
      const b = holding(group, end);
      if (b) end = placeBefore(b.at, end);
    }
    return [start, end];
  };
}

/** The last place at or before `offset` among a view's (sorted) character starts. */
function placeBefore(at: Int32Array, offset: number): number {
  let lo = 0;
  let hi = at.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (at[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return at[lo]!;
}

/** The first place at or after `offset` among a view's (sorted) character starts. */
function placeAfter(at: Int32Array, offset: number): number {
  let lo = 0;
  let hi = at.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid]! >= offset) hi = mid;
    else lo = mid + 1;
  }
  return at[lo]!;
}
