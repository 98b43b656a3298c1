/**
 * The scanner's anchor pass (src/redact/scan.ts): one alternation of every
 * anchor, run by the regex engine, must find exactly the offsets a plain
 * comparison finds, with only A-Z folded to a-z (a non-ASCII letter whose
 * upper case is ASCII, like `ſ` or the Kelvin sign, is not an anchor's
 * letter), overlapping anchors each found, and skipped ranges left out.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { RULES } from "../../src/redact/rules.ts";
import { anchorOffsets } from "../../src/redact/scan.ts";

const ANCHORS = [...new Set(RULES.flatMap((r) => r.anchors))];
const fold = (c: number) => (c >= 65 && c <= 90 ? c | 32 : c);

/** The offsets by brute force: every offset, every anchor, character by character. */
function reference(text: string, skip: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let skipped = false;
    for (let k = 0; k < skip.length; k += 2) if (skip[k]! <= i && i < skip[k + 1]!) skipped = true;
    if (skipped) continue;
    const hit = ANCHORS.some((a) => {
      if (i + a.length > text.length) return false;
      for (let k = 0; k < a.length; k++) if (fold(text.charCodeAt(i + k)) !== a.charCodeAt(k)) return false;
      return true;
    });
    if (hit) out.push(i);
  }
  return out;
}

/** Text made of anchors in random case, their pieces, lookalike letters and filler. */
const piece = fc.oneof(
  fc
    .constantFrom(...ANCHORS)
    .chain((a) =>
      fc.array(fc.boolean(), { minLength: a.length, maxLength: a.length }).map((up) => [...a].map((c, i) => (up[i] ? c.toUpperCase() : c)).join("")),
    ),
  fc.constantFrom(...ANCHORS).map((a) => a.slice(0, Math.max(1, a.length - 1))),
  fc.constantFrom("ſ", "K", "ı", "İ", "ｓｋ", "é", "\\n", '\\"', "-", "_", ".", " ", "\n", "=", ":"),
  fc.string({ maxLength: 6 }),
);
const text = fc.array(piece, { maxLength: 24 }).map((parts) => parts.join(""));
/** Sorted, disjoint [start, end) ranges inside a text of `n` characters. */
const skips = (n: number) =>
  fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, n) }), { maxLength: 6 }).map((xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 0 ? s : s.slice(0, -1);
  });

describe("the anchor pass", () => {
  test("finds every offset a plain comparison finds, and no other", () => {
    fc.assert(
      fc.property(
        text.chain((t) => fc.tuple(fc.constant(t), skips(t.length))),
        ([t, skip]) => {
          expect(anchorOffsets(t, RULES, skip)).toEqual(reference(t, skip));
        },
      ),
      { numRuns: 3000 },
    );
  });

  test("overlapping anchors, case and lookalikes", () => {
    expect(anchorOffsets("xoxe.xoxb-", RULES)).toEqual(reference("xoxe.xoxb-", []));
    expect(anchorOffsets("SK-ANT-", RULES)).toContain(0);
    // `ſk` upper-cases to `SK` but is not an anchor: only ASCII letters fold.
    expect(anchorOffsets("ſk-ant- \u212Aey", RULES)).toEqual(reference("ſk-ant- \u212Aey", []));
    expect(anchorOffsets("ſk-ant-", RULES)).not.toContain(0);
    expect(anchorOffsets("password", RULES, [0, 8])).toEqual([]);
  });
});
