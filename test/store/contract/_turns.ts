/** append (all-or-nothing), read (paging with `after`, I4) and sessions. */
import { describe, expect } from "bun:test";
import { type Factory, contents, contractTest, counts, failure, notes } from "./_subject.ts";

/** The turn cases. */
export function turnCases(factory: Factory): void {
  describe("append, read, sessions", () => {
    contractTest(factory, "append answers strictly increasing LSNs and read gives back each turn as written", async ({ a }) => {
      const r = await a.append({
        session: "proj/notes",
        entries: [
          { role: "user", content: "first", meta: { n: 1 }, idem_key: "k1" },
          { role: "assistant", content: "second, ünïcode" },
        ],
      });
      expect(r.entries.map((e) => e.duplicate)).toEqual([false, false]);
      const [l1, l2] = r.entries.map((e) => e.lsn) as [number, number];
      expect(l2).toBeGreaterThan(l1);
      const page = await a.read({ session: "proj/notes" });
      expect(page.next).toBeNull();
      expect(page.turns.map(({ ts: _ts, ...t }) => t)).toEqual([
        { lsn: l1, session: "proj/notes", role: "user", content: "first", meta: { n: 1 }, idem_key: "k1" },
        { lsn: l2, session: "proj/notes", role: "assistant", content: "second, ünïcode", meta: {} },
      ]);
      for (const t of page.turns) expect(Number.isNaN(Date.parse(t.ts))).toBe(false);
      const [l3] = await notes(a, "proj/notes", "third");
      expect(l3).toBeGreaterThan(l2);
    });

    contractTest(factory, "append is all-or-nothing: a bad entry anywhere refuses the batch, naming it", async ({ a }) => {
      const bad = a.append({
        session: "s",
        entries: [
          { role: "user", content: "fine" },
          { role: "robot" as "user", content: "bad role" },
        ],
      });
      expect(await failure(bad)).toEqual({ code: "invalid_input", field: "entries.1.role" });
      expect(await contents(a, "s")).toEqual([]);
      expect(await counts(a)).toMatchObject({ turns: 0, sessions: 0 });
    });

    contractTest(factory, "append is all-or-nothing at commit: a key conflict in the second entry keeps the first out", async ({ a }) => {
      await a.append({ session: "s", entries: [{ role: "user", content: "held", idem_key: "k" }] });
      const before = await counts(a);
      const clash = a.append({
        session: "s",
        entries: [
          { role: "user", content: "new" },
          { role: "user", content: "other", idem_key: "k" },
        ],
      });
      expect(await failure(clash)).toEqual({ code: "conflict", field: "entries.1.idem_key" });
      expect(await contents(a, "s")).toEqual(["held"]);
      expect(await counts(a)).toEqual(before);
    });

    contractTest(factory, "read pages with `after`: no turn skipped or repeated, `next` null at the end (I4)", async ({ a }) => {
      const lsns = await notes(a, "s", "t0", "t1", "t2", "t3", "t4");
      await notes(a, "elsewhere", "not in s");
      const seen: number[] = [];
      let after: number | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await a.read({ session: "s", limit: 2, ...(after === undefined ? {} : { after }) });
        seen.push(...page.turns.map((t) => t.lsn));
        if (page.next === null) break;
        expect(page.turns.length).toBe(2);
        after = page.next;
      }
      expect(seen).toEqual(lsns);
      expect(await a.read({ session: "s", after: lsns[4]! })).toEqual({ turns: [], next: null });
      expect(await a.read({ session: "never-written" })).toEqual({ turns: [], next: null });
    });

    contractTest(factory, "a page walk while another writer appends to the session skips and repeats nothing (I4)", async ({ a }) => {
      const WRITES = 120;
      let done = false;
      const written: number[] = [];
      // The writer appends one entry at a time, as a hook does, while the reader pages.
      const writer = (async () => {
        for (let i = 0; i < WRITES; i++) written.push(...(await notes(a, "s/w", `w${i}`)));
        done = true;
      })();
      const seen: number[] = [];
      let after = 0;
      let during = 0;
      for (let idle = false; !idle; ) {
        const finished = done;
        const page = await a.read({ session: "s/w", after, limit: 3 });
        if (!finished) during++;
        seen.push(...page.turns.map((t) => t.lsn));
        if (page.turns.length > 0) after = page.turns[page.turns.length - 1]!.lsn;
        // Done only when a page read after the writer finished had nothing more.
        idle = finished && page.turns.length === 0;
      }
      await writer;
      expect(written).toHaveLength(WRITES);
      expect(seen).toEqual(written);
      // The walk ran while the writer wrote, not after it.
      expect(during).toBeGreaterThan(1);
    });

    contractTest(factory, "sessions: turns, LSN range and bytes per session, by prefix, paged by name", async ({ a }) => {
      const [x1, x2] = await notes(a, "proj/x", "aa", "bbb");
      const [y1] = await notes(a, "proj/y", "c");
      await notes(a, "other", "d");
      const all = await a.sessions({});
      expect(all).toEqual({
        sessions: [
          { name: "other", turns: 1, first_lsn: y1! + 1, last_lsn: y1! + 1, bytes: 1 },
          { name: "proj/x", turns: 2, first_lsn: x1!, last_lsn: x2!, bytes: 5 },
          { name: "proj/y", turns: 1, first_lsn: y1!, last_lsn: y1!, bytes: 1 },
        ],
        next: null,
      });
      const first = await a.sessions({ prefix: "proj/", limit: 1 });
      expect(first.sessions.map((s) => s.name)).toEqual(["proj/x"]);
      expect(first.next).not.toBeNull();
      const second = await a.sessions({ prefix: "proj/", limit: 1, after: first.next! });
      expect(second.sessions.map((s) => s.name)).toEqual(["proj/y"]);
      const rest = second.next === null ? [] : (await a.sessions({ prefix: "proj/", after: second.next })).sessions;
      expect(rest).toEqual([]);
    });
  });
}
