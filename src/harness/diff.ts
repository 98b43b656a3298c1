/**
 * A unified diff of two texts, for `connect --dry-run`, by jsdiff's Myers
 * algorithm: time and memory grow with the size of the edit, not with
 * lines × lines, so a small change to a large ~/.claude.json stays cheap.
 */
import { structuredPatch } from "diff";

const CONTEXT = 3;

/** A unified diff (`--- a`, `+++ b`, `@@` hunks) of `before` and `after`; empty when equal. */
export function unifiedDiff(before: string, after: string, opts: { from: string; to: string }): string {
  if (before === after) return "";
  const a = normalize(before);
  const b = normalize(after);
  const out = [`--- ${opts.from}`, `+++ ${opts.to}`];
  for (const h of structuredPatch(opts.from, opts.to, a, b, undefined, undefined, { context: CONTEXT }).hunks) {
    // An empty range is named by the line before it (diff -u's convention).
    out.push(
      `@@ -${h.oldLines === 0 ? h.oldStart - 1 : h.oldStart},${h.oldLines} +${h.newLines === 0 ? h.newStart - 1 : h.newStart},${h.newLines} @@`,
      ...h.lines,
    );
  }
  return `${out.join("\n")}\n`;
}

/** The text's lines without CR, each ended by one newline, so neither line endings nor a missing last newline show as changes. */
function normalize(text: string): string {
  if (text === "") return "";
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return `${lines.map((l) => l.replace(/\r$/, "")).join("\n")}\n`;
}
