/** as_of on read, sessions, search, fact_get and fact_list: memory as it was at a point (DESIGN.md section 17, issue 33). */
import { describe, expect } from "bun:test";
import type { Memory } from "../../../src/store/types.ts";
import { type Factory, contractTest, failure, notes } from "./_subject.ts";

/** Waits until the clock is past `ms`, so the next record's time differs from every earlier one's. */
export async function clockPast(ms: number): Promise<void> {
  while (Date.now() <= ms) await new Promise((r) => setTimeout(r, 1));
}

/** The time a turn was written, in milliseconds. */
async function turnTime(m: Memory, session: string, lsn: number): Promise<number> {
  const turn = (await m.read({ session, after: lsn - 1, limit: 1 })).turns[0]!;
  expect(turn.lsn).toBe(lsn);
  return Date.parse(turn.ts);
}

/** The contents of a session at a point. */
async function contentsAt(m: Memory, session: string, as_of: number | string): Promise<string[]> {
  return (await m.read({ session, as_of, limit: 1000 })).turns.map((t) => t.content);
}

/** The as_of cases. */
export function asOfCases(factory: Factory): void {
  describe("as_of", () => {
    contractTest(factory, "a fact set three times reads, at each point, the value it had then", async ({ a }) => {
      const one = await a.factSet({ key: "deploy/target", value: "staging" });
      const two = await a.factSet({ key: "deploy/target", value: { host: "prod-1" } });
      await a.factSet({ key: "deploy/other", value: 7 });
      const three = await a.factSet({ key: "deploy/target", value: ["prod-1", "prod-2"] });
      expect(await a.factGet({ key: "deploy/target", as_of: one.lsn })).toEqual({ key: "deploy/target", value: "staging", lsn: one.lsn });
      expect(await a.factGet({ key: "deploy/target", as_of: two.lsn })).toEqual({ key: "deploy/target", value: { host: "prod-1" }, lsn: two.lsn });
      expect(await a.factGet({ key: "deploy/target", as_of: three.lsn - 1 })).toEqual({ key: "deploy/target", value: { host: "prod-1" }, lsn: two.lsn });
      expect(await a.factGet({ key: "deploy/target", as_of: three.lsn })).toEqual({ key: "deploy/target", value: ["prod-1", "prod-2"], lsn: three.lsn });
      // An LSN as digits (the form a query string or a flag carries) is the same point.
      expect((await a.factGet({ key: "deploy/target", as_of: String(two.lsn) })).lsn).toBe(two.lsn);
      expect(await failure(a.factGet({ key: "deploy/target", as_of: one.lsn - 1 }))).toEqual({ code: "not_found", field: "key" });
      expect(await failure(a.factGet({ key: "deploy/target", as_of: 0 }))).toEqual({ code: "not_found", field: "key" });
      // Past the end is now.
      expect((await a.factGet({ key: "deploy/target", as_of: three.lsn + 1000 })).lsn).toBe(three.lsn);
      const list = async (as_of: number) => (await a.factList({ prefix: "deploy/", as_of })).facts.map((f) => [f.key, f.value]);
      expect(await list(one.lsn)).toEqual([["deploy/target", "staging"]]);
      expect(await list(two.lsn)).toEqual([["deploy/target", { host: "prod-1" }]]);
      expect(await list(three.lsn - 1)).toEqual([
        ["deploy/other", 7],
        ["deploy/target", { host: "prod-1" }],
      ]);
      expect(await list(three.lsn)).toEqual([
        ["deploy/other", 7],
        ["deploy/target", ["prod-1", "prod-2"]],
      ]);
      expect(await list(0)).toEqual([]);
      // Paged as of a point, the pages hold the values of then.
      const first = await a.factList({ prefix: "deploy/", as_of: three.lsn - 1, limit: 1 });
      expect(first).toEqual({ facts: [{ key: "deploy/other", value: 7, lsn: three.lsn - 1 }], next: "deploy/other" });
      expect(await a.factList({ prefix: "deploy/", as_of: three.lsn - 1, limit: 1, after: first.next! })).toEqual({
        facts: [{ key: "deploy/target", value: { host: "prod-1" }, lsn: two.lsn }],
        next: null,
      });
    });

    contractTest(factory, "a session read at a point holds the turns of then while others append", async ({ a, b }) => {
      const early = await notes(a, "proj/s1", "first", "second");
      await notes(a, "proj/s2", "other session");
      await notes(b, "proj/s1", "bob's turn");
      const point = early[1]!;
      const later = await notes(a, "proj/s1", "third", "fourth");
      await notes(a, "proj/s3", "a session born later");
      expect(await contentsAt(a, "proj/s1", point)).toEqual(["first", "second"]);
      expect(await contentsAt(a, "proj/s1", later[0]!)).toEqual(["first", "second", "third"]);
      expect(await contentsAt(a, "proj/s1", 0)).toEqual([]);
      expect(await contentsAt(b, "proj/s1", point)).toEqual([]);
      // Paging as of a point stops at the point.
      const page = await a.read({ session: "proj/s1", as_of: later[0]!, limit: 2 });
      expect(page.turns.map((t) => t.content)).toEqual(["first", "second"]);
      expect(await a.read({ session: "proj/s1", as_of: later[0]!, after: page.next!, limit: 2 })).toEqual({
        turns: [expect.objectContaining({ content: "third", lsn: later[0]! })],
        next: null,
      });
      // Sessions as of a point: those that had turns then, with their counts then.
      const at = async (as_of: number) => (await a.sessions({ prefix: "proj/", as_of })).sessions;
      expect(await at(point)).toEqual([{ name: "proj/s1", turns: 2, first_lsn: early[0]!, last_lsn: early[1]!, bytes: 11 }]);
      expect((await at(later[1]!)).map((s) => `${s.name}:${s.turns}`)).toEqual(["proj/s1:4", "proj/s2:1"]);
      expect((await at(later[1]! + 1000)).map((s) => `${s.name}:${s.turns}`)).toEqual(["proj/s1:4", "proj/s2:1", "proj/s3:1"]);
      expect(await a.sessions({ as_of: 0 })).toEqual({ sessions: [], next: null });
      const paged = await a.sessions({ prefix: "proj/", as_of: later[1]!, limit: 1 });
      expect(paged.sessions.map((s) => s.name)).toEqual(["proj/s1"]);
      expect(paged.next).toBe("proj/s1");
      expect((await a.sessions({ prefix: "proj/", as_of: later[1]!, after: paged.next! })).sessions.map((s) => s.name)).toEqual(["proj/s2"]);
    });

    contractTest(factory, "search as of a point before a turn's LSN does not find it", async ({ a }) => {
      const [old] = await notes(a, "s", "the flamingo migration plan");
      const [fresh] = await notes(a, "s", "flamingo rollback happened");
      const found = async (as_of?: number) => (await a.search({ query: "flamingo", ...(as_of !== undefined ? { as_of } : {}) })).hits.map((h) => h.lsn).sort();
      expect(await found()).toEqual([old!, fresh!].sort());
      expect(await found(old!)).toEqual([old!]);
      expect(await found(fresh!)).toEqual([old!, fresh!].sort());
      expect(await found(old! - 1)).toEqual([]);
      expect((await a.search({ query: "rollback", as_of: old! })).hits).toEqual([]);
      expect((await a.search({ query: "rollback", queries: ["flamingo"], as_of: old! })).hits.map((h) => h.lsn)).toEqual([old!]);
    });

    contractTest(factory, "a forgotten turn is absent at every point", async ({ a }) => {
      const lsns = await notes(a, "s", "keep one", "the secret pelican plan", "keep two");
      await a.factSet({ key: "gone", value: "pelican value" });
      const forgot = await a.forget({ selector: { turn: lsns[1]! } });
      await a.forget({ selector: { fact: "gone" } });
      expect(forgot.hidden).toBe(1);
      const last = forgot.lsn! + 1;
      for (const point of [lsns[0]!, lsns[1]!, lsns[2]!, forgot.lsn! - 1, forgot.lsn!, last, last + 100]) {
        expect(await contentsAt(a, "s", point)).not.toContain("the secret pelican plan");
        expect((await a.search({ query: "pelican", as_of: point })).hits).toEqual([]);
        expect(await failure(a.factGet({ key: "gone", as_of: point }))).toEqual({ code: "not_found", field: "key" });
        expect((await a.factList({ as_of: point })).facts).toEqual([]);
      }
      expect(await contentsAt(a, "s", lsns[1]!)).toEqual(["keep one"]);
      expect((await a.sessions({ as_of: lsns[1]! })).sessions).toEqual([{ name: "s", turns: 1, first_lsn: lsns[0]!, last_lsn: lsns[0]!, bytes: 8 }]);
    });

    contractTest(factory, "a time as_of is the last record at or before it: between records and on their timestamps", async ({ a }) => {
      const [first] = await notes(a, "t", "alpha");
      const t1 = await turnTime(a, "t", first!);
      await clockPast(t1 + 1);
      const [second] = await notes(a, "t", "beta");
      const t2 = await turnTime(a, "t", second!);
      await clockPast(t2 + 1);
      const [third] = await notes(a, "t", "gamma");
      const t3 = await turnTime(a, "t", third!);
      const iso = (ms: number) => new Date(ms).toISOString();
      expect(await contentsAt(a, "t", iso(t1 - 1))).toEqual([]);
      expect(await contentsAt(a, "t", iso(t1))).toEqual(["alpha"]);
      expect(await contentsAt(a, "t", iso(t2 - 1))).toEqual(["alpha"]);
      expect(await contentsAt(a, "t", iso(t2))).toEqual(["alpha", "beta"]);
      expect(await contentsAt(a, "t", iso(t3 - 1))).toEqual(["alpha", "beta"]);
      expect(await contentsAt(a, "t", iso(t3))).toEqual(["alpha", "beta", "gamma"]);
      expect(await contentsAt(a, "t", iso(t3 + 86_400_000))).toEqual(["alpha", "beta", "gamma"]);
      expect(await contentsAt(a, "t", "2001-01-01")).toEqual([]);
      // The same times on the other reads.
      expect((await a.sessions({ as_of: iso(t2) })).sessions.map((s) => s.turns)).toEqual([2]);
      expect((await a.search({ query: "gamma", as_of: iso(t3 - 1) })).hits).toEqual([]);
      expect((await a.search({ query: "gamma", as_of: iso(t3) })).hits.map((h) => h.lsn)).toEqual([third!]);
      await clockPast(t3 + 1);
      const v = await a.factSet({ key: "k", value: "v" });
      expect(await failure(a.factGet({ key: "k", as_of: iso(t3) }))).toEqual({ code: "not_found", field: "key" });
      expect((await a.factList({ as_of: iso(t3) })).facts).toEqual([]);
      expect((await a.factGet({ key: "k", as_of: iso(Date.now() + 60_000) })).lsn).toBe(v.lsn);
    });

    contractTest(factory, "a bad as_of is refused naming the field, on every read", async ({ a }) => {
      await notes(a, "s", "something");
      for (const bad of ["yesterday", "2026-13-45T00:00:00Z", "-1", "1.5", "", "12abc"] as const) {
        expect(await failure(a.read({ session: "s", as_of: bad }))).toEqual({ code: "invalid_input", field: "as_of" });
        expect(await failure(a.sessions({ as_of: bad }))).toEqual({ code: "invalid_input", field: "as_of" });
        expect(await failure(a.search({ query: "something", as_of: bad }))).toEqual({ code: "invalid_input", field: "as_of" });
        expect(await failure(a.factGet({ key: "k", as_of: bad }))).toEqual({ code: "invalid_input", field: "as_of" });
        expect(await failure(a.factList({ as_of: bad }))).toEqual({ code: "invalid_input", field: "as_of" });
      }
      for (const bad of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1]) {
        expect(await failure(a.read({ session: "s", as_of: bad }))).toEqual({ code: "invalid_input", field: "as_of" });
      }
      expect(await failure(a.read({ session: "s", as_of: true as never }))).toEqual({ code: "invalid_input", field: "as_of" });
    });
  });
}
