/** Splitting entries too big for one turn (DESIGN.md 7.2), in-process. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { chunkText, measure } from "../../src/capture/chunk.ts";
import { CHUNK_JSON_MAX_BYTES, CHUNK_RAW_MAX_BYTES, CHUNKS_MAX } from "../../src/capture/limits.ts";
import { CONTENT_MAX_BYTES } from "../../src/limits.ts";

const MiB = 1024 * 1024;
const rawBytes = (s: string) => Buffer.byteLength(s, "utf8");
const jsonBytes = (s: string) => Buffer.byteLength(JSON.stringify(s), "utf8") - 2;

/** Every chunk within both limits, none cut one character short, the whole text kept in order. */
function checkChunks(text: string, chunks: string[]): void {
  expect(chunks.join("")).toBe(text);
  for (const [i, c] of chunks.entries()) {
    expect(c.isWellFormed()).toBe(true);
    expect(rawBytes(c)).toBeLessThanOrEqual(CHUNK_RAW_MAX_BYTES);
    expect(jsonBytes(c)).toBeLessThanOrEqual(CHUNK_JSON_MAX_BYTES);
    if (i < chunks.length - 1) {
      const next = String.fromCodePoint(chunks[i + 1]!.codePointAt(0)!);
      const grown = c + next;
      expect(rawBytes(grown) > CHUNK_RAW_MAX_BYTES || jsonBytes(grown) > CHUNK_JSON_MAX_BYTES).toBe(true);
    }
  }
}

describe("chunkText", () => {
  test("text that fits one turn is one chunk, up to the 4 MiB limit exactly", () => {
    expect(chunkText("hello")).toEqual({ chunks: ["hello"], truncated: false });
    const limit = "a".repeat(CONTENT_MAX_BYTES);
    expect(chunkText(limit).chunks).toEqual([limit]);
  });

  test("one byte over the turn limit splits at 3 MiB", () => {
    const text = "b".repeat(CONTENT_MAX_BYTES + 1);
    const { chunks, truncated } = chunkText(text);
    expect(truncated).toBe(false);
    expect(chunks.map((c) => c.length)).toEqual([3 * MiB, MiB + 1]);
    checkChunks(text, chunks);
  });

  test("characters that JSON-escape to six bytes split at 7 MiB escaped, even under the raw limit", () => {
    const text = "\u001b".repeat(2 * MiB);
    const { chunks } = chunkText(text);
    expect(chunks.length).toBe(2);
    expect(chunks[0]!.length).toBe(Math.floor(CHUNK_JSON_MAX_BYTES / 6));
    checkChunks(text, chunks);
  });

  test("multi-byte characters and surrogate pairs are never cut", () => {
    const text = `${"é".repeat(1_500_000)}${"😀".repeat(700_000)}${"中".repeat(1_200_000)}`;
    const { chunks } = chunkText(text);
    expect(chunks.length).toBeGreaterThan(2);
    checkChunks(text, chunks);
  });

  test("the same text always splits the same way", () => {
    const text = Array.from({ length: 400_000 }, (_, i) => (i % 7 === 0 ? '"\\\n\t\u0001' : "word ")).join("");
    expect(chunkText(text)).toEqual(chunkText(text));
    checkChunks(text, chunkText(text).chunks);
  });

  test("at most 64 chunks are kept; the rest is dropped and marked truncated", () => {
    const perChunk = Math.floor(CHUNK_JSON_MAX_BYTES / 6);
    const exact = "\u0001".repeat(perChunk * CHUNKS_MAX);
    expect(chunkText(exact)).toMatchObject({ truncated: false });
    expect(chunkText(exact).chunks.length).toBe(CHUNKS_MAX);
    const over = `${exact}\u0001`;
    const { chunks, truncated } = chunkText(over);
    expect(truncated).toBe(true);
    expect(chunks.length).toBe(CHUNKS_MAX);
    expect(chunks.join("")).toBe(exact);
  }, 60_000);

  test("random mixes of plain runs, escapes and multi-byte characters split at the limits", () => {
    const pieces = ["plain text ", "é", "\n", "😀", '"', "\\", "\u0001", "中文", "x".repeat(3000), "\u001b".repeat(500)];
    fc.assert(
      fc.property(fc.array(fc.nat(pieces.length - 1), { minLength: 50, maxLength: 50 }), (picks) => {
        const parts: string[] = [];
        for (let i = 0, bytes = 0; bytes < 9 * MiB; i++) {
          parts.push(pieces[picks[i % picks.length]!]!.repeat(1 + (i % 97)));
          bytes += Buffer.byteLength(parts[parts.length - 1]!);
        }
        const text = parts.join("");
        checkChunks(text, chunkText(text).chunks);
      }),
      { numRuns: 4 },
    );
  }, 60_000);

  test("measure agrees with UTF-8 and JSON.stringify on any well-formed text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), fc.string({ unit: "binary", maxLength: 50 }), (a, b) => {
        const s = (a + b).toWellFormed();
        expect(measure(s)).toEqual({ raw: rawBytes(s), json: jsonBytes(s) });
      }),
      { numRuns: 500 },
    );
  });
});
