/**
 * The scanner: runs every rule over the text, merges overlapping hits into
 * one redaction (the earliest rule names it), and leaves alone anything that
 * is already a `[redacted:<kind>]` marker, so redacting twice changes nothing.
 */
import type { Hit, Rule } from "./types.ts";

const MARKER = /\[redacted:[a-z0-9_]{1,40}\]/g;

/** A hit with the rank of the rule that made it (lower wins the name of a merged span). */
interface Ranked extends Hit {
  rank: number;
}

/** Every hit of every rule over `text`, overlaps merged, sorted by position; markers already present are never hit. */
export function scan(text: string, rules: readonly Rule[]): Hit[] {
  const found: Ranked[] = [];
  if (text.includes("[redacted:")) {
    for (const m of text.matchAll(MARKER)) found.push({ kind: "", start: m.index, end: m.index + m[0].length, rank: -1 });
  }
  rules.forEach((rule, rank) => {
    const re = rule.re;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const hit = rule.pick ? rule.pick(m, text) : defaultSpan(rule.kind, m);
      if (hit && hit.end > hit.start) found.push({ ...hit, rank });
    }
  });
  return merge(found);
}

function defaultSpan(kind: string, m: RegExpExecArray): Hit {
  const span = m.indices?.groups?.s;
  return span ? { kind, start: span[0], end: span[1] } : { kind, start: m.index, end: m.index + m[0].length };
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
