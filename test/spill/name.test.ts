/** Spill file names (DESIGN.md section 9): the safe name and the random part. */
import { describe, expect, test } from "bun:test";
import { FALLBACK_NAME, randomPart, safeName } from "../../src/spill/name.ts";

describe("safeName", () => {
  test("keeps letters, digits, dots, underscores and dashes", () => {
    expect(safeName("recall-my_proj.v2.txt")).toBe("recall-my_proj.v2.txt");
  });

  test("collapses every other run of characters to one dash", () => {
    expect(safeName("a b/c\\d:::e\u00e9\u{1F600}f")).toBe("a-b-c-d-e-f");
  });

  test("strips leading dots and dashes, so no hidden file, '..' or flag", () => {
    expect(safeName("..secret")).toBe("secret");
    expect(safeName("../../etc/passwd")).toBe("etc-passwd");
    expect(safeName("--rf")).toBe("rf");
    expect(safeName(" .-.x")).toBe("x");
  });

  test("cuts to 64 bytes", () => {
    const name = safeName(`${"x".repeat(100)}.txt`);
    expect(name).toBe("x".repeat(64));
    expect(Buffer.byteLength(safeName("é".repeat(200)), "utf8")).toBeLessThanOrEqual(64);
  });

  test("falls back to result.txt when nothing is left", () => {
    expect(FALLBACK_NAME).toBe("result.txt");
    for (const n of ["", "...", "---", "/", "\u00e9\u00e9", ".-.-"]) expect(safeName(n)).toBe("result.txt");
  });
});

describe("randomPart", () => {
  test("is 12 base64url characters and differs between calls", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const r = randomPart();
      expect(r).toMatch(/^[A-Za-z0-9_-]{12}$/);
      seen.add(r);
    }
    expect(seen.size).toBe(200);
  });
});
