import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { sha256, sha256Hex } from "../../src/util/hash.ts";

describe("sha256", () => {
  test("is SHA-256: the FIPS 180-2 vector of 'abc', and the empty input", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  test("hashes a string as its UTF-8 bytes, and bytes as given, as node:crypto does", () => {
    for (const s of ["plain", "naïve café ☕ 日本語", "a\u0000b", "\u{1F600}".repeat(1000)]) {
      const want = createHash("sha256").update(s, "utf8").digest();
      expect(Buffer.from(sha256(s)).equals(want)).toBe(true);
      expect(Buffer.from(sha256(new TextEncoder().encode(s))).equals(want)).toBe(true);
      expect(sha256Hex(s)).toBe(want.toString("hex"));
    }
    expect(sha256("x")).toBeInstanceOf(Uint8Array);
    expect(sha256("x").length).toBe(32);
  });
});
