/**
 * DESIGN.md section 3 at each boundary, on every engine: the limit passes,
 * one more fails with `too_large` or `invalid_input` naming the field, and
 * nothing is written (I6). The byte bounds of a read page (16 MiB) stay in
 * test/store/limits.test.ts, on SQLite: they need tens of MiB per subject.
 */
import { describe, expect } from "bun:test";
import * as L from "../../../src/limits.ts";
import type { Memory } from "../../../src/store/types.ts";
import { type Factory, contractTest, counts, failure } from "./_subject.ts";

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

/** A write that must fail with this code and field, writing nothing. */
async function refused(m: Memory, write: () => Promise<unknown>, code: string, field: string): Promise<void> {
  const before = await counts(m);
  expect(await failure(write())).toEqual({ code, field });
  expect(await counts(m)).toEqual(before);
}

const note = (content = "x") => ({ role: "note" as const, content });

/** The limit cases. */
export function limitCases(factory: Factory): void {
  describe("limits (DESIGN.md section 3)", () => {
    contractTest(factory, "session name: 255 bytes pass, 256 fail; bad segments and control characters fail", async ({ a }) => {
      const ok = bytes(L.NAME_MAX_BYTES);
      expect(Buffer.byteLength(ok)).toBe(255);
      await a.append({ session: ok, entries: [note()] });
      expect((await a.read({ session: ok })).turns.map((t) => t.session)).toEqual([ok]);
      await refused(a, () => a.append({ session: bytes(256), entries: [note()] }), "invalid_input", "session");
      for (const bad of ["", "a/../b", "..", "a/./b", "/a", "a/", "a//b", "a\u0000b", "tab\there", "del\u007f", "c1\u0085"])
        await refused(a, () => a.append({ session: bad, entries: [note()] }), "invalid_input", "session");
    });

    contractTest(factory, "turn content: 4 MiB passes and reads back whole, one byte more is too_large; lone surrogates are invalid", async ({ a }) => {
      const max = bytes(L.CONTENT_MAX_BYTES);
      const [lsn] = (await a.append({ session: "s", entries: [note(max)] })).entries.map((e) => e.lsn);
      const back = (await a.read({ session: "s" })).turns[0]!;
      expect([back.lsn, back.content.length, back.content === max]).toEqual([lsn!, max.length, true]);
      await refused(a, () => a.append({ session: "s", entries: [note(bytes(L.CONTENT_MAX_BYTES + 1))] }), "too_large", "entries.0.content");
      await refused(a, () => a.append({ session: "s", entries: [note("bad \ud800 half")] }), "invalid_input", "entries.0.content");
    });

    contractTest(factory, "turn meta: 16 KiB serialized passes, one byte more is too_large; non-objects and non-JSON numbers are invalid", async ({ a }) => {
      expect(Buffer.byteLength(JSON.stringify(metaOf(L.META_MAX_BYTES)))).toBe(16384);
      await a.append({ session: "s", entries: [{ ...note(), meta: metaOf(L.META_MAX_BYTES) }] });
      await refused(a, () => a.append({ session: "s", entries: [{ ...note(), meta: metaOf(L.META_MAX_BYTES + 1) }] }), "too_large", "entries.0.meta");
      await refused(a, () => a.append({ session: "s", entries: [{ ...note(), meta: [1] as never }] }), "invalid_input", "entries.0.meta");
      await refused(a, () => a.append({ session: "s", entries: [{ ...note(), meta: { n: Number.POSITIVE_INFINITY } }] }), "invalid_input", "entries.0.meta.n");
    });

    contractTest(factory, "idem_key: 1 and 255 bytes pass; 0 and 256 fail", async ({ a }) => {
      await a.append({ session: "s", entries: [{ ...note(), idem_key: "k" }] });
      const long = bytes(255);
      await a.append({ session: "s", entries: [{ ...note(), idem_key: long }] });
      expect((await a.read({ session: "s" })).turns.map((t) => t.idem_key)).toEqual(["k", long]);
      await refused(a, () => a.append({ session: "s", entries: [{ ...note(), idem_key: "" }] }), "invalid_input", "entries.0.idem_key");
      await refused(a, () => a.append({ session: "s", entries: [{ ...note(), idem_key: bytes(256) }] }), "too_large", "entries.0.idem_key");
    });

    contractTest(factory, "fact key like a session name; fact value 1 MiB serialized passes, one byte more is too_large", async ({ a }) => {
      await a.factSet({ key: bytes(255), value: 1 });
      await refused(a, () => a.factSet({ key: bytes(256), value: 1 }), "invalid_input", "key");
      await refused(a, () => a.factSet({ key: "a/../b", value: 1 }), "invalid_input", "key");
      // The quotes make it 1 MiB.
      const exact = "v".repeat(L.FACT_VALUE_MAX_BYTES - 2);
      await a.factSet({ key: "big", value: exact });
      expect((await a.factGet({ key: "big" })).value).toBe(exact);
      await refused(a, () => a.factSet({ key: "big", value: `${exact}v` }), "too_large", "value");
      await refused(a, () => a.factSet({ key: "nothing" } as never), "invalid_input", "value");
    });

    contractTest(factory, "entries per append: 256 pass, 257 and 0 fail; a page is 100 by default, at most 1,000", async ({ a }) => {
      await a.append({ session: "s", entries: Array(L.APPEND_MAX_ENTRIES).fill(note()) });
      await refused(a, () => a.append({ session: "s", entries: Array(L.APPEND_MAX_ENTRIES + 1).fill(note()) }), "too_large", "entries");
      await refused(a, () => a.append({ session: "s", entries: [] }), "invalid_input", "entries");
      expect((await a.read({ session: "s" })).turns.length).toBe(100);
      expect((await a.read({ session: "s", limit: 1000 })).turns.length).toBe(256);
      for (const limit of [1001, 0, -1, 1.5])
        expect({ limit, ...(await failure(a.read({ session: "s", limit }))) }).toEqual({ limit, code: "invalid_input", field: "limit" });
      expect(await failure(a.sessions({ limit: 1001 }))).toEqual({ code: "invalid_input", field: "limit" });
    });

    contractTest(factory, "wrong types and missing or unknown fields name the field; the message says what was wrong", async ({ a }) => {
      await refused(a, () => a.append({ session: 5, entries: [] } as never), "invalid_input", "session");
      await refused(a, () => a.append({ entries: [note()] } as never), "invalid_input", "session");
      await refused(a, () => a.append({ session: "s", entries: [{ role: "robot", content: "x" }] } as never), "invalid_input", "entries.0.role");
      await refused(a, () => a.append({ session: "s", entries: [{ role: "note" }] } as never), "invalid_input", "entries.0.content");
      await refused(a, () => a.append({ session: "s", entries: [{ ...note(), extra: 1 }] } as never), "invalid_input", "entries.0.extra");
      await refused(a, () => a.append({ session: "s", entries: [note()], x: 1 } as never), "invalid_input", "x");
      const message = (p: Promise<unknown>) =>
        p.then(
          () => "no error",
          (e: { message?: string }) => e.message,
        );
      expect(await message(a.append({ session: "s", entries: [{ role: "note", content: 42 }] } as never))).toBe(
        "entries.0.content: Invalid input: expected string, received number",
      );
      expect(await message(a.append({ session: "s", entries: [{ role: "note" }] } as never))).toBe("entries.0.content: required");
    });
  });
}
