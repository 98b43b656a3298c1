/**
 * Capture cursors (DESIGN.md 7.2, Store.capture): a batch and its cursor
 * commit together, a replay appends nothing, and a forgotten key stays
 * reserved. A subject without cursors skips these with its reason.
 */
import { describe, expect } from "bun:test";
import { BATCH_SESSION, chunkedBatch, lineBatch } from "../../capture/_batches.ts";
import { type Factory, type Subject, contents, contractTest, counts, failure } from "./_subject.ts";

type Cursors = NonNullable<Subject["capture"]>;

/** A capture case: it needs the capability, and gets both tenants' cursors beside the subject. */
function cursorTest(factory: Factory, name: string, fn: (c: Cursors, s: Subject) => Promise<void>): void {
  contractTest(
    factory,
    name,
    async (s) => {
      if (!s.capture) throw new Error("the factory offers capture cursors but gave none");
      await fn(s.capture, s);
    },
    { needs: "capture" },
  );
}

/** The capture cursor cases. */
export function captureCases(factory: Factory): void {
  describe("capture cursors", () => {
    cursorTest(factory, "commit appends a batch and moves its cursor together", async ({ a: c }, s) => {
      expect(await c.cursor("sid")).toBeUndefined();
      expect(await c.commit(lineBatch(0, 3))).toEqual({ status: "committed", appended: 3, skipped: 0, cursor: { offset: 30, position: 3, chunk: 0 } });
      expect(await c.cursor("sid")).toEqual({
        source: "sid",
        session: BATCH_SESSION,
        path: "/t/sid.jsonl",
        offset: 30,
        position: 3,
        chunk: 0,
        updated: expect.any(Number),
      });
      expect(await contents(s.a, BATCH_SESSION)).toEqual(["line 0", "line 1", "line 2"]);
      await c.commit(chunkedBatch(0));
      expect((await c.cursors()).map((r) => [r.source, r.position, r.chunk])).toEqual([
        ["big", 1, 0],
        ["sid", 3, 0],
      ]);
    });

    cursorTest(factory, "a replayed batch appends nothing; an overlapping one only the rest; one that skips ahead nothing", async ({ a: c }, s) => {
      await c.commit(lineBatch(0, 3));
      const before = await counts(s.a);
      expect(await c.commit(lineBatch(0, 3))).toEqual({ status: "moved", cursor: { offset: 30, position: 3, chunk: 0 } });
      expect(await counts(s.a)).toEqual(before);
      expect(await c.commit(lineBatch(0, 5))).toEqual({ status: "committed", appended: 2, skipped: 0, cursor: { offset: 50, position: 5, chunk: 0 } });
      expect(await c.commit(lineBatch(7, 9))).toEqual({ status: "moved", cursor: { offset: 50, position: 5, chunk: 0 } });
      expect(await contents(s.a, BATCH_SESSION)).toEqual(["line 0", "line 1", "line 2", "line 3", "line 4"]);
    });

    cursorTest(factory, "chunks of one line resume at the first missing chunk", async ({ a: c }, s) => {
      const firstTwo = { ...chunkedBatch(0), end: { offset: 0, position: 0, chunk: 2 }, entries: chunkedBatch(0).entries.slice(0, 2) };
      expect((await c.commit(firstTwo)).status).toBe("committed");
      expect(await c.commit(chunkedBatch(0))).toMatchObject({ status: "committed", appended: 1 });
      expect(await contents(s.a, BATCH_SESSION)).toEqual(["part 0", "part 1", "part 2"]);
    });

    cursorTest(factory, "a key the tenant held is skipped even after a forget: a replay from a lost cursor brings nothing back (I3)", async ({ a: c }, s) => {
      await c.commit(lineBatch(0, 3));
      await s.a.forget({ selector: { session: BATCH_SESSION } });
      // Another source row with the same transcript keys: what a lost cursor replays.
      expect(await c.commit(lineBatch(0, 4, { source: "sid-again" }))).toEqual({
        status: "committed",
        appended: 1,
        skipped: 3,
        cursor: { offset: 40, position: 4, chunk: 0 },
      });
      expect(await contents(s.a, BATCH_SESSION)).toEqual(["line 3"]);
    });

    cursorTest(factory, "a bad batch is refused naming the field; neither entries nor cursor move (I6)", async ({ a: c }, s) => {
      const bad = lineBatch(0, 3);
      bad.entries[1]!.entry.role = "robot" as "user";
      expect(await failure(c.commit(bad))).toEqual({ code: "invalid_input", field: "entries.1.entry.role" });
      expect(await failure(c.commit({ ...lineBatch(0, 1), session: "a//b" }))).toEqual({ code: "invalid_input", field: "session" });
      expect(await c.cursor("sid")).toBeUndefined();
      expect(await counts(s.a)).toMatchObject({ turns: 0, last_lsn: 0 });
    });

    cursorTest(factory, "a batch that fails inside its transaction leaves neither entries nor cursor behind", async ({ a: c }, s) => {
      // Valid entry by entry, but two claim one key for different content: the second append conflicts after the first was written.
      const clash = lineBatch(0, 2);
      clash.entries[1]!.entry.idem_key = clash.entries[0]!.entry.idem_key;
      expect(await failure(c.commit(clash))).toEqual({ code: "conflict", field: "entries.1.idem_key" });
      expect(await c.cursor("sid")).toBeUndefined();
      expect(await contents(s.a, BATCH_SESSION)).toEqual([]);
      expect(await counts(s.a)).toMatchObject({ turns: 0, last_lsn: 0 });
    });

    cursorTest(factory, "cursors are per tenant", async ({ a, b }, s) => {
      await a.commit(lineBatch(0, 2));
      expect(await b.cursor("sid")).toBeUndefined();
      expect(await b.cursors()).toEqual([]);
      expect((await b.commit(lineBatch(0, 2))).status).toBe("committed");
      expect(await contents(s.b, BATCH_SESSION)).toEqual(["line 0", "line 1"]);
    });
  });
}
