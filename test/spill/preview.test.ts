/** The head-and-tail preview: 4:1, within budget, on UTF-8 boundaries. */
import { describe, expect, test } from "bun:test";
import { headTailPreview } from "../../src/spill/preview.ts";

const notice = (n: number) => `\n[${n} bytes omitted]\n`;

describe("headTailPreview", () => {
  test("keeps four parts of head to one of tail around the notice", () => {
    const text = "a".repeat(10_000) + "b".repeat(10_000);
    const p = headTailPreview(Buffer.from(text), 1000, notice)!;
    const budget = 1000 - notice(20_000).length;
    const [head, tail] = p.text.split(/\n\[\d+ bytes omitted\]\n/);
    expect(head).toBe("a".repeat(Math.floor((budget * 4) / 5)));
    expect(tail).toBe("b".repeat(budget - head!.length));
    expect(p.omittedBytes).toBe(20_000 - head!.length - tail!.length);
    expect(p.text).toContain(`[${p.omittedBytes} bytes omitted]`);
  });

  test("never cuts inside a character and never exceeds the budget", () => {
    // 1-, 2-, 3- and 4-byte characters in every alignment.
    const unit = "a\u00e9\u20ac\u{1F600}";
    for (let len = 50; len < 400; len += 7) {
      const text = unit.repeat(len);
      for (let max = 60; max < 300; max += 13) {
        const bytes = Buffer.from(text);
        if (bytes.length <= max) continue;
        const p = headTailPreview(bytes, max, notice)!;
        expect(Buffer.byteLength(p.text)).toBeLessThanOrEqual(max);
        expect(p.text.isWellFormed()).toBe(true);
        expect(p.text).not.toContain("\uFFFD");
        const [head, tail] = p.text.split(/\n\[\d+ bytes omitted\]\n/);
        expect(text.startsWith(head!)).toBe(true);
        expect(text.endsWith(tail!)).toBe(true);
        expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!) + p.omittedBytes).toBe(bytes.length);
      }
    }
  });

  test("is undefined when the notice alone does not fit", () => {
    expect(headTailPreview(Buffer.from("x".repeat(100)), 10, notice)).toBeUndefined();
  });
});
