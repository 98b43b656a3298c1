/** I3: one idempotency key names one operation forever, even after a forget. */
import { describe, expect } from "bun:test";
import { type Factory, contents, contractTest, counts, failure } from "./_subject.ts";

/** The idempotency cases. */
export function idempotencyCases(factory: Factory): void {
  describe("idempotency keys (I3)", () => {
    contractTest(factory, "a retry with the same key and content returns the original LSN, duplicate, and writes nothing", async ({ a }) => {
      const entry = { role: "user" as const, content: "hi", meta: { b: 1, a: 2 }, idem_key: "k1" };
      const first = await a.append({ session: "s", entries: [entry] });
      const before = await counts(a);
      // The same meta with its keys in another order is the same content.
      expect(await a.append({ session: "s", entries: [{ ...entry, meta: { a: 2, b: 1 } }] })).toEqual({
        entries: [{ lsn: first.entries[0]!.lsn, duplicate: true }],
      });
      expect(await counts(a)).toEqual(before);
      expect(await contents(a, "s")).toEqual(["hi"]);
    });

    contractTest(factory, "the same key with other content is a conflict naming the key", async ({ a }) => {
      await a.append({ session: "s", entries: [{ role: "user", content: "hi", idem_key: "k1" }] });
      expect(await failure(a.append({ session: "s", entries: [{ role: "user", content: "changed", idem_key: "k1" }] }))).toEqual({
        code: "conflict",
        field: "entries.0.idem_key",
      });
    });

    contractTest(factory, "a key repeated within one batch: the same entry is a duplicate of the first, other content fails the whole batch", async ({ a }) => {
      const entry = { role: "user" as const, content: "twice", idem_key: "in-batch" };
      const r = await a.append({ session: "s", entries: [entry, { role: "user", content: "between" }, entry] });
      expect(r.entries.map((e) => e.duplicate)).toEqual([false, false, true]);
      expect(r.entries[2]!.lsn).toBe(r.entries[0]!.lsn);
      expect(await contents(a, "s")).toEqual(["twice", "between"]);
      const before = await counts(a);
      expect(
        await failure(
          a.append({
            session: "s",
            entries: [
              { role: "user", content: "new one", idem_key: "fresh" },
              { role: "user", content: "other", idem_key: "fresh" },
            ],
          }),
        ),
      ).toEqual({ code: "conflict", field: "entries.1.idem_key" });
      expect(await counts(a)).toEqual(before);
    });

    contractTest(factory, "a retry after the record is forgotten is a duplicate that writes nothing and brings nothing back", async ({ a }) => {
      const entry = { role: "user" as const, content: "forget me", idem_key: "gone" };
      const first = await a.append({ session: "s", entries: [entry] });
      await a.forget({ selector: { session: "s" } });
      const before = await counts(a);
      expect(await a.append({ session: "s", entries: [entry] })).toEqual({ entries: [{ lsn: first.entries[0]!.lsn, duplicate: true }] });
      expect(await counts(a)).toEqual(before);
      expect(await contents(a, "s")).toEqual([]);
      expect((await a.search({ query: "forget" })).hits).toEqual([]);
      // The forgotten write left no hash to compare with (issue 14 item 4): a replay of its key with other content is
      // that duplicate too, and writes nothing; a conflict here would tell a guess of the content from a miss.
      expect(await a.append({ session: "s", entries: [{ ...entry, content: "other" }] })).toEqual({
        entries: [{ lsn: first.entries[0]!.lsn, duplicate: true }],
      });
      expect(await counts(a)).toEqual(before);
      expect(await contents(a, "s")).toEqual([]);
    });

    contractTest(factory, "a key one kind of write holds is a conflict for another kind", async ({ a }) => {
      const fact = await a.factSet({ key: "f", value: 1, idem_key: "shared" });
      expect(await failure(a.append({ session: "s", entries: [{ role: "note", content: "x", idem_key: "shared" }] }))).toEqual({
        code: "conflict",
        field: "entries.0.idem_key",
      });
      expect(await failure(a.linkAdd({ url: "https://example.com/x", idem_key: "shared" }))).toEqual({ code: "conflict", field: "idem_key" });
      expect(await a.factSet({ key: "f", value: 1, idem_key: "shared" })).toEqual({ lsn: fact.lsn, duplicate: true });
      expect(await contents(a, "s")).toEqual([]);
    });

    contractTest(factory, "fact_set and link_add keep their keys too: a retry is a duplicate, other content a conflict", async ({ a }) => {
      const fact = await a.factSet({ key: "k", value: { v: 1 }, idem_key: "f1" });
      expect(await a.factSet({ key: "k", value: { v: 1 }, idem_key: "f1" })).toEqual({ lsn: fact.lsn, duplicate: true });
      expect(await failure(a.factSet({ key: "k", value: { v: 2 }, idem_key: "f1" }))).toEqual({ code: "conflict", field: "idem_key" });
      const link = await a.linkAdd({ url: "https://example.com/a", idem_key: "l1" });
      expect(await a.linkAdd({ url: "https://example.com/a", idem_key: "l1" })).toEqual({ lsn: link.lsn, duplicate: true });
      expect(await failure(a.linkAdd({ url: "https://example.com/b", idem_key: "l1" }))).toEqual({ code: "conflict", field: "idem_key" });
      expect((await a.factGet({ key: "k" })).value).toEqual({ v: 1 });
    });
  });
}
