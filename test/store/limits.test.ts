/** The byte bounds of read and fact_history pages (16 MiB), on SQLite: tens of MiB a case. Every other limit of DESIGN.md section 3 runs on every engine: test/store/contract/_limits.ts. */
import { describe, expect, test } from "bun:test";
import * as L from "../../src/limits.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import type { Memory } from "../../src/store/types.ts";
import { tempDir } from "../helpers.ts";

/** A string of exactly n UTF-8 bytes (multi-byte where it fits). */
function bytes(n: number, ch = "é"): string {
  const per = Buffer.byteLength(ch);
  return ch.repeat(Math.floor(n / per)) + "a".repeat(n % per);
}

async function withMemory(fn: (m: Memory) => Promise<void>) {
  using dir = tempDir();
  const store = openSqliteStore(dir.path);
  try {
    await fn(store.memory("local"));
  } finally {
    store.close();
  }
}

describe("read pages are bounded in bytes", () => {
  test("a page stops before READ_PAGE_MAX_BYTES of content (at least one turn), and next walks on", () =>
    withMemory(async (m) => {
      const big = bytes(L.CONTENT_MAX_BYTES);
      for (let i = 0; i < 6; i++) await m.append({ session: "big", entries: [{ role: "note", content: big }] });
      const perPage = Math.floor(L.READ_PAGE_MAX_BYTES / L.CONTENT_MAX_BYTES);
      const first = await m.read({ session: "big", limit: 1000 });
      expect(first.turns.length).toBe(perPage);
      expect(first.next).toBe(first.turns[perPage - 1]!.lsn);
      const second = await m.read({ session: "big", after: first.next!, limit: 1000 });
      expect(second.turns.length).toBe(6 - perPage);
      expect(second.next).toBeNull();
    }));
});

describe("fact_history pages are bounded in bytes like read's", () => {
  test("a page of past values stops before READ_PAGE_MAX_BYTES (at least one value), and next walks on, newest first", () =>
    withMemory(async (m) => {
      // A string value of 1 MiB less its JSON quotes: each record holds FACT_VALUE_MAX_BYTES.
      const big = "v".repeat(L.FACT_VALUE_MAX_BYTES - 2);
      const lsns: number[] = [];
      for (let i = 0; i < 18; i++) lsns.push((await m.factSet({ key: "big", value: `${i}${big.slice(String(i).length)}` })).lsn);
      const perPage = Math.floor(L.READ_PAGE_MAX_BYTES / L.FACT_VALUE_MAX_BYTES);
      const first = await m.factHistory({ key: "big", limit: 1000 });
      expect(first.values.map((v) => v.lsn)).toEqual(lsns.slice(-perPage).reverse());
      expect(first.next).toBe(lsns[18 - perPage]!);
      const second = await m.factHistory({ key: "big", before: first.next!, limit: 1000 });
      expect(second.values.map((v) => v.lsn)).toEqual(lsns.slice(0, 18 - perPage).reverse());
      expect(second.next).toBeNull();
    }));
});
