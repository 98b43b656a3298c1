/** The bench workload must make recall checkable: each planted word in exactly one memory, for FTS and for substring search alike. */
import { describe, expect, test } from "bun:test";
import { WORDS, entryText, filler, plantedTarget, plantedWord } from "../../scripts/bench/_workload.ts";

describe("bench workload", () => {
  test("filler is about 300 bytes of vocabulary words, the same for the same index", () => {
    for (const i of [0, 1, 77, 9_999]) {
      const text = filler(i);
      expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(280);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(310);
      expect(text.split(" ").every((w) => WORDS.includes(w))).toBe(true);
      expect(filler(i)).toBe(text);
    }
  });

  test("a planted word occurs, even as a substring, only in its own entry", () => {
    const every = 50;
    const texts = Array.from({ length: 10_000 }, (_, i) => entryText(i, every));
    for (const k of [0, 50, 500, 5_000, 9_950]) {
      const word = plantedWord(k);
      expect(texts.flatMap((t, i) => (t.toLowerCase().includes(word) ? [i] : []))).toEqual([k]);
    }
  });

  test("planted-word queries target only planted entries below the size, and reach many of them", () => {
    for (const [size, every] of [
      [1_000, 50],
      [10_000, 50],
      [100_000, 500],
    ] as const) {
      const targets = Array.from({ length: 200 }, (_, q) => plantedTarget(q, size, every));
      expect(targets.every((k) => k % every === 0 && k < size)).toBe(true);
      expect(new Set(targets).size).toBe(Math.min(200, size / every));
    }
  });
});
