/**
 * The `records` selector of forget (issue 30): how sync replays a forget made
 * on another machine, on the LSNs this store holds. It hides exactly the
 * listed records of the tenant (never a forget, never another tenant's,
 * I5), and takes 1 to FORGET_RANGES_MAX ranges (DESIGN.md 3 style limit).
 */
import { describe, expect, test } from "bun:test";
import { FORGET_RANGES_MAX } from "../../src/limits.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

describe("forget records", () => {
  test("hides exactly the listed records of the tenant, overlapping ranges once", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    try {
      const m = store.memory("local");
      const other = store.memory("other");
      const a = await m.append({ session: "s", entries: [1, 2, 3, 4].map((i) => ({ role: "note" as const, content: `turn ${i}` })) });
      const theirs = await other.append({ session: "s", entries: [{ role: "note", content: "another tenant's" }] });
      const fact = await m.factSet({ key: "k", value: "v1" });
      const later = await m.factSet({ key: "k", value: "v2" });
      const [l1, , l3, l4] = a.entries.map((e) => e.lsn) as [number, number, number, number];
      const r = await m.forget({
        selector: {
          records: [
            [l1, l1],
            [l3, l4],
            [l4, l4],
            [fact.lsn!, fact.lsn!],
            [theirs.entries[0]!.lsn, theirs.entries[0]!.lsn],
          ],
        },
      });
      expect(r.hidden).toBe(4);
      expect((await m.read({ session: "s" })).turns.map((t) => t.content)).toEqual(["turn 2"]);
      // The fact's later value stays its value: only the listed one is gone.
      expect(await m.factGet({ key: "k" })).toMatchObject({ value: "v2", lsn: later.lsn });
      expect((await other.read({ session: "s" })).turns).toHaveLength(1);
      // A forget is never hidden by one, and a second forget of the same records writes nothing.
      expect(await m.forget({ selector: { records: [[1, 1_000]] } })).toMatchObject({ hidden: 2 });
      expect(await m.forget({ selector: { records: [[1, 1_000]] } })).toMatchObject({ hidden: 0, lsn: null });
    } finally {
      store.close();
    }
  });

  test(`takes up to ${FORGET_RANGES_MAX} ranges; one more is too_large, an empty list or a reversed range invalid_input, naming the field`, async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    try {
      const m = store.memory("local");
      await m.append({ session: "s", entries: [{ role: "note", content: "kept" }] });
      const ranges = (n: number) => Array.from({ length: n }, (_, i) => [1000 + 2 * i, 1000 + 2 * i] as [number, number]);
      expect(await m.forget({ selector: { records: ranges(FORGET_RANGES_MAX) } })).toMatchObject({ hidden: 0 });
      const cases: [[number, number][], string][] = [
        [ranges(FORGET_RANGES_MAX + 1), "too_large"],
        [[], "invalid_input"],
        [[[5, 4]], "invalid_input"],
      ];
      for (const [records, code] of cases) {
        const err = (await m.forget({ selector: { records } }).catch((e) => e)) as { code?: string; field?: string };
        expect({ code: err.code, field: err.field }).toEqual({ code, field: expect.stringContaining("selector.records") });
      }
      expect((await m.read({ session: "s" })).turns).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});
