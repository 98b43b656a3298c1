/** DESIGN.md section 3: every limit at its boundary; over it, a clear error and nothing written (I6). */
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

/** A JSON object whose serialization is exactly n bytes. */
function metaOf(n: number): Record<string, string> {
  const overhead = Buffer.byteLength(JSON.stringify({ k: "" }));
  return { k: "m".repeat(n - overhead) };
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

/** Runs a write that must fail; checks its code and field and that nothing was written. */
async function rejects(m: Memory, write: () => Promise<unknown>, code: string, field: string) {
  const before = (await m.stats()).last_lsn;
  const err = (await write().then(
    () => ({ code: "none", field: "none" }),
    (e) => e,
  )) as { code: string; field: string };
  expect({ code: err.code, field: err.field }).toEqual({ code, field });
  expect((await m.stats()).last_lsn).toBe(before);
}

describe("limits (DESIGN.md section 3)", () => {
  test("session name: 255 bytes pass, 256 fail; bad segments and control characters fail", () =>
    withMemory(async (m) => {
      const ok = bytes(L.NAME_MAX_BYTES);
      expect(Buffer.byteLength(ok)).toBe(255);
      await m.append({ session: ok, entries: [{ role: "note", content: "x" }] });
      await rejects(m, () => m.append({ session: bytes(256), entries: [{ role: "note", content: "x" }] }), "invalid_input", "session");
      for (const bad of ["", "a/../b", "..", "a/./b", "/a", "a/", "a//b", "a\u0000b", "tab\there", "del\u007f", "c1\u0085"]) {
        await rejects(m, () => m.append({ session: bad, entries: [{ role: "note", content: "x" }] }), "invalid_input", "session");
      }
    }));

  test("turn content: 4 MiB passes, one byte more is too_large; lone surrogates are invalid", () =>
    withMemory(async (m) => {
      await m.append({ session: "s", entries: [{ role: "note", content: bytes(L.CONTENT_MAX_BYTES) }] });
      await rejects(
        m,
        () => m.append({ session: "s", entries: [{ role: "note", content: bytes(L.CONTENT_MAX_BYTES + 1) }] }),
        "too_large",
        "entries.0.content",
      );
      await rejects(m, () => m.append({ session: "s", entries: [{ role: "note", content: "bad \ud800 half" }] }), "invalid_input", "entries.0.content");
    }));

  test("turn meta: 16 KiB serialized passes, one byte more is too_large; non-objects are invalid", () =>
    withMemory(async (m) => {
      expect(Buffer.byteLength(JSON.stringify(metaOf(L.META_MAX_BYTES)))).toBe(16384);
      await m.append({ session: "s", entries: [{ role: "note", content: "x", meta: metaOf(L.META_MAX_BYTES) }] });
      await rejects(
        m,
        () => m.append({ session: "s", entries: [{ role: "note", content: "x", meta: metaOf(L.META_MAX_BYTES + 1) }] }),
        "too_large",
        "entries.0.meta",
      );
      await rejects(m, () => m.append({ session: "s", entries: [{ role: "note", content: "x", meta: [1] as never }] }), "invalid_input", "entries.0.meta");
      await rejects(m, () => m.append({ session: "s", entries: [{ role: "note", content: "x", meta: { n: Infinity } }] }), "invalid_input", "entries.0.meta.n");
    }));

  test("idem_key: 1 and 255 bytes pass; 0 and 256 fail", () =>
    withMemory(async (m) => {
      await m.append({ session: "s", entries: [{ role: "note", content: "x", idem_key: "k" }] });
      await m.append({ session: "s", entries: [{ role: "note", content: "x", idem_key: bytes(255) }] });
      await rejects(m, () => m.append({ session: "s", entries: [{ role: "note", content: "x", idem_key: "" }] }), "invalid_input", "entries.0.idem_key");
      await rejects(m, () => m.append({ session: "s", entries: [{ role: "note", content: "x", idem_key: bytes(256) }] }), "too_large", "entries.0.idem_key");
    }));

  test("fact key like a session name; fact value 1 MiB serialized passes, one byte more is too_large", () =>
    withMemory(async (m) => {
      await m.factSet({ key: bytes(255), value: 1 });
      await rejects(m, () => m.factSet({ key: bytes(256), value: 1 }), "invalid_input", "key");
      await rejects(m, () => m.factSet({ key: "a/../b", value: 1 }), "invalid_input", "key");
      const exact = "v".repeat(L.FACT_VALUE_MAX_BYTES - 2); // the quotes make it 1 MiB
      await m.factSet({ key: "big", value: exact });
      await rejects(m, () => m.factSet({ key: "big", value: `${exact}v` }), "too_large", "value");
      await rejects(m, () => m.factSet({ key: "nothing" } as never), "invalid_input", "value");
    }));

  test("entries per append: 256 pass, 257 and 0 fail", () =>
    withMemory(async (m) => {
      const e = { role: "note" as const, content: "x" };
      await m.append({ session: "s", entries: Array(L.APPEND_MAX_ENTRIES).fill(e) });
      await rejects(m, () => m.append({ session: "s", entries: Array(L.APPEND_MAX_ENTRIES + 1).fill(e) }), "too_large", "entries");
      await rejects(m, () => m.append({ session: "s", entries: [] }), "invalid_input", "entries");
    }));

  test("page size: 1000 passes, 1001 and 0 are invalid_input; default 100", () =>
    withMemory(async (m) => {
      await m.append({ session: "s", entries: Array(256).fill({ role: "note", content: "x" }) });
      expect((await m.read({ session: "s" })).turns.length).toBe(100);
      expect((await m.read({ session: "s", limit: 1000 })).turns.length).toBe(256);
      for (const limit of [1001, 0, -1, 1.5]) {
        const err = await m.read({ session: "s", limit }).catch((e) => e);
        expect({ limit, code: err.code, field: err.field }).toEqual({ limit, code: "invalid_input", field: "limit" });
      }
      const err = await m.sessions({ limit: 1001 }).catch((e) => e);
      expect(err.field).toBe("limit");
    }));

  test("wrong types and missing or unknown fields name the field", () =>
    withMemory(async (m) => {
      await rejects(m, () => m.append({ session: 5, entries: [] } as never), "invalid_input", "session");
      await rejects(m, () => m.append({ entries: [{ role: "note", content: "x" }] } as never), "invalid_input", "session");
      await rejects(m, () => m.append({ session: "s", entries: [{ role: "robot", content: "x" }] } as never), "invalid_input", "entries.0.role");
      await rejects(m, () => m.append({ session: "s", entries: [{ role: "note" }] } as never), "invalid_input", "entries.0.content");
      await rejects(m, () => m.append({ session: "s", entries: [{ role: "note", content: "x", extra: 1 }] } as never), "invalid_input", "entries.0.extra");
      await rejects(m, () => m.append({ session: "s", entries: [{ role: "note", content: "x" }], x: 1 } as never), "invalid_input", "x");
    }));
});

describe("error messages", () => {
  test("a wrong type says so, a missing field says required", () =>
    withMemory(async (m) => {
      const wrong = await m.append({ session: "s", entries: [{ role: "note", content: 42 }] } as never).catch((e) => e);
      expect(wrong.message).toBe("entries.0.content: Invalid input: expected string, received number");
      const missing = await m.append({ session: "s", entries: [{ role: "note" }] } as never).catch((e) => e);
      expect(missing.message).toBe("entries.0.content: required");
    }));
});

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
