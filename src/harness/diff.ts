/**
 * A unified diff of two texts, for `connect --dry-run`. The common head and
 * tail are trimmed first, so the quadratic LCS only sees the few lines an
 * edit touched, even in a large ~/.claude.json.
 */

const CONTEXT = 3;

/** A unified diff (`--- a`, `+++ b`, `@@` hunks) of `before` and `after`; empty when equal. */
export function unifiedDiff(before: string, after: string, opts: { from: string; to: string }): string {
  if (before === after) return "";
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ops: { op: " " | "-" | "+"; line: string }[] = [];
  for (let i = 0; i < head; i++) ops.push({ op: " ", line: a[i]! });
  ops.push(...lcsOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail)));
  for (let i = a.length - tail; i < a.length; i++) ops.push({ op: " ", line: a[i]! });

  const out = [`--- ${opts.from}`, `+++ ${opts.to}`];
  let i = 0;
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.op === " ") i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - CONTEXT);
    // One hunk holds every change within two contexts of the previous one.
    let end = i;
    for (let j = i + 1; j < ops.length; j++) {
      if (ops[j]!.op === " ") continue;
      if (j - end > 2 * CONTEXT) break;
      end = j;
    }
    const stop = Math.min(ops.length, end + 1 + CONTEXT);
    const hunk = ops.slice(start, stop);
    const aStart = 1 + ops.slice(0, start).filter((o) => o.op !== "+").length;
    const bStart = 1 + ops.slice(0, start).filter((o) => o.op !== "-").length;
    const aLen = hunk.filter((o) => o.op !== "+").length;
    const bLen = hunk.filter((o) => o.op !== "-").length;
    out.push(`@@ -${aLen === 0 ? aStart - 1 : aStart},${aLen} +${bLen === 0 ? bStart - 1 : bStart},${bLen} @@`);
    for (const o of hunk) out.push(o.op + o.line);
    i = stop;
  }
  return `${out.join("\n")}\n`;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => l.replace(/\r$/, ""));
}

/** The edit script of two short line lists by longest common subsequence. */
function lcsOps(a: string[], b: string[]): { op: " " | "-" | "+"; line: string }[] {
  const n = a.length;
  const m = b.length;
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  const ops: { op: " " | "-" | "+"; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ op: " ", line: a[i++]! });
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) ops.push({ op: "-", line: a[i++]! });
    else ops.push({ op: "+", line: b[j++]! });
  }
  while (i < n) ops.push({ op: "-", line: a[i++]! });
  while (j < m) ops.push({ op: "+", line: b[j++]! });
  return ops;
}
