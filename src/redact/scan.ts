/**
 * The scanner. One pass over the text finds every rule's anchors (the
 * literal each match starts with: `ghp_`, `password`, `-----BEGIN`), case
 * folded; each rule's regex then runs sticky at its anchors only. Rules
 * without anchors (card numbers, a few formats with no literal start) run
 * over the whole text. Overlapping hits merge into one redaction, named by
 * the earliest rule; anything that is already a `[redacted:<kind>]` marker
 * is left alone, so redacting twice changes nothing.
 *
 * Why: JavaScriptCore's regex engine walks the text once per regex; ninety
 * regexes over a 3 MiB tool result cost more than the hook's whole budget,
 * while the anchor pass is one: every anchor in one alternation, which the
 * engine compiles to machine code (a loop over char codes in JavaScript
 * stays in the interpreter for a hook's short life, and cost 1.5 times as
 * much over a 64-entry run's text).
 */
import { escapeRegExp } from "../util/regexp.ts";
import { type Hit, type Rule, defaultHit } from "./types.ts";

const NONE: readonly number[] = [];
const MARKER = /\[redacted:[a-z0-9_]{1,40}\]/g;
const STAND_IN = /x{6,}|X{6,}|\*{4,}|\.{3}|<[^>]*>|your[_-]/;

/** A hit with the rank of the rule that made it (lower wins the name of a merged span). */
interface Ranked extends Hit {
  rank: number;
}

/** An anchor and the rules that start at it. */
interface Entry {
  anchor: string;
  rules: number[];
}

/** The rules prepared for scanning: their regexes (compiled on first use), and anchors indexed by their first two (folded) characters. */
interface Prepared {
  regex: (RegExp | undefined)[];
  global: number[];
  /** (first << 7 | second), both ASCII, either case -> 1 + index into `buckets`; 0: no anchor starts so. */
  pairs: Uint8Array;
  buckets: Entry[][];
  /**
   * Every anchor as one case-insensitive alternation: the regex engine's compiled matcher finds where any starts,
   * faster than a loop over char codes (a hook's code runs in the interpreter: 30-40% of a 64-entry run's scan).
   * Without the `u` flag, `i` folds only ASCII letters to ASCII (ECMA-262 Canonicalize), as the pair table does.
   */
  find: RegExp;
  /** A scan's `doneTo`, kept for the next scan: a hook scans hundreds of short strings, and each new array cost more than its fill. */
  spare: Int32Array | undefined;
}

const prepared = new WeakMap<readonly Rule[], Prepared>();

const fold = (c: number) => (c >= 65 && c <= 90 ? c | 32 : c);
/** Indexes the rules' anchors by their first two characters, in either case (plain loops: this runs cold, once per process). */
function prepare(rules: readonly Rule[]): Prepared {
  const p: Prepared = {
    regex: new Array(rules.length).fill(undefined),
    global: [],
    pairs: new Uint8Array(1 << 14),
    buckets: [],
    find: /$^/g, // replaced below, once every anchor is known
    spare: undefined,
  };
  const entries = new Map<string, Entry>();
  for (let r = 0; r < rules.length; r++) {
    const anchors = rules[r]!.anchors;
    if (anchors.length === 0) p.global.push(r);
    for (let k = 0; k < anchors.length; k++) {
      const anchor = anchors[k]!;
      const known = entries.get(anchor);
      if (known) {
        known.rules.push(r);
        continue;
      }
      const a = anchor.charCodeAt(0);
      const b = anchor.charCodeAt(1);
      // Two lower-case ASCII characters at least: the pair table is 128 x 128 and folds only A-Z.
      if (!(a < 128 && b < 128 && fold(a) === a && fold(b) === b)) throw new Error(`bad anchor ${anchor}`);
      let slot = p.pairs[(a << 7) | b]!;
      if (slot === 0) {
        p.buckets.push([]);
        slot = p.buckets.length;
        if (slot > 255) throw new Error("too many anchor pairs");
        const A = a >= 97 && a <= 122 ? a - 32 : a;
        const B = b >= 97 && b <= 122 ? b - 32 : b;
        p.pairs[(a << 7) | b] = p.pairs[(A << 7) | b] = p.pairs[(a << 7) | B] = p.pairs[(A << 7) | B] = slot;
      }
      const entry = { anchor, rules: [r] };
      entries.set(anchor, entry);
      p.buckets[slot - 1]!.push(entry);
    }
  }
  p.find = new RegExp([...entries.keys()].map(escapeRegExp).join("|"), "gi");
  return p;
}

/** The rules' prepared scanning state, made on first use. */
function preparedFor(rules: readonly Rule[]): Prepared {
  let p = prepared.get(rules);
  if (!p) prepared.set(rules, (p = prepare(rules)));
  return p;
}

/**
 * Every offset of `text` where one of the rules' anchors starts (ASCII case
 * ignored), in order, leaving out offsets inside the `skip` ranges.
 */
export function anchorOffsets(text: string, rules: readonly Rule[], skip: readonly number[] = NONE): number[] {
  return anchorStarts(text, preparedFor(rules).find, skip);
}

function anchorStarts(text: string, find: RegExp, skip: readonly number[]): number[] {
  const out: number[] = [];
  let k = 0;
  find.lastIndex = 0;
  for (let m = find.exec(text); m !== null; m = find.exec(text)) {
    const i = m.index;
    // Anchors overlap (`sk-ant-` holds `sk`, `xoxe.xox` holds `xox` again): the next search starts one character on.
    find.lastIndex = i + 1;
    while (k < skip.length && skip[k + 1]! <= i) k += 2;
    if (k < skip.length && skip[k]! <= i) find.lastIndex = skip[k + 1]!;
    else out.push(i);
  }
  return out;
}

/** Whether `anchor` (lower case) stands at `at`, ignoring ASCII case; its first two characters are already known to match. */
function anchorAt(text: string, at: number, anchor: string): boolean {
  if (at + anchor.length > text.length) return false;
  for (let k = 2; k < anchor.length; k++) if (fold(text.charCodeAt(at + k)) !== anchor.charCodeAt(k)) return false;
  return true;
}

/** Where a scan looks. */
export interface ScanOptions {
  /**
   * Sorted [start, end) pairs where no anchored match starts: escaped text
   * whose decoded form is scanned instead (escapes.ts). The rules with no
   * anchor still run over all of it: what stands next to an escape
   * (`\nMTk…` reads as one word) changes their word boundaries.
   */
  skip?: readonly number[];
}

/** Every hit of every rule over `text`, overlaps merged, sorted by position; markers already present are never hit. */
export function scan(text: string, rules: readonly Rule[], opts: ScanOptions = {}): Hit[] {
  const skip = opts.skip ?? NONE;
  const p = preparedFor(rules);
  const found: Ranked[] = [];
  if (text.includes("[redacted:")) {
    for (const m of text.matchAll(MARKER)) found.push({ kind: "", start: m.index, end: m.index + m[0].length, rank: -1 });
  }
  const add = (rule: Rule, rank: number, m: RegExpExecArray) => {
    const hit = rule.pick ? rule.pick(m, text) : defaultHit(rule.kind, m);
    if (!hit || hit.end <= hit.start) return;
    // A token-shaped stand-in (sk-proj-xxxxxxxx, ghp_...): documentation, not a secret.
    if (hit.end - hit.start < 200 && STAND_IN.test(text.slice(hit.start, hit.end))) return;
    found.push({ ...hit, rank });
  };
  // A rule is not run again inside its own last match, nor twice at one start. The array is taken from `p` while this
  // scan runs (a scan that a rule's pick started meanwhile makes its own) and handed back at the end.
  const doneTo = p.spare ?? new Int32Array(rules.length);
  p.spare = undefined;
  doneTo.fill(-1);
  const { pairs, buckets, regex } = p;
  const starts = anchorStarts(text, p.find, skip);
  for (let j = 0; j < starts.length; j++) {
    const i = starts[j]!;
    const slot = pairs[(text.charCodeAt(i) << 7) | text.charCodeAt(i + 1)]!;
    const bucket = buckets[slot - 1]!;
    for (let e = 0; e < bucket.length; e++) {
      const entry = bucket[e]!;
      if (entry.anchor.length > 2 && !anchorAt(text, i, entry.anchor)) continue;
      const ids = entry.rules;
      for (let q = 0; q < ids.length; q++) {
        const r = ids[q]!;
        const rule = rules[r]!;
        const start = i - rule.back;
        if (start < 0 || start <= doneTo[r]!) continue;
        // Sticky: it matches at `start` or not at all.
        const re = (regex[r] ??= new RegExp(rule.source, `dy${rule.flags}`));
        re.lastIndex = start;
        const mm = re.exec(text);
        if (mm === null) {
          doneTo[r] = start;
          continue;
        }
        doneTo[r] = Math.max(start, mm.index + mm[0].length - 1);
        if (mm[0].length > 0) add(rule, r, mm);
      }
    }
  }
  for (const r of p.global) {
    const rule = rules[r]!;
    const re = (regex[r] ??= new RegExp(rule.source, `dg${rule.flags}`));
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].length === 0) re.lastIndex++;
      else add(rule, r, m);
    }
  }
  p.spare = doneTo;
  return merge(found);
}

/** Overlapping hits become one; a group touching an existing marker is dropped (the secret is already gone). */
function merge(found: Ranked[]): Hit[] {
  found.sort((a, b) => a.start - b.start || a.rank - b.rank);
  const out: Hit[] = [];
  let group: Ranked | undefined;
  let marker = false;
  const flush = () => {
    if (group && !marker) out.push({ kind: group.kind, start: group.start, end: group.end });
  };
  for (const h of found) {
    if (group && h.start < group.end) {
      group.end = Math.max(group.end, h.end);
      if (h.rank < group.rank) {
        group.rank = h.rank;
        group.kind = h.kind;
      }
      marker ||= h.rank < 0;
      continue;
    }
    flush();
    group = { ...h };
    marker = h.rank < 0;
  }
  flush();
  return out;
}
