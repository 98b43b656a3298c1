/** Several phrasings of one search (DESIGN.md 11, "Several phrasings"; issue 28): `queries` beside `query`, fused by rank on every engine. */
import { describe, expect } from "bun:test";
import { QUERY_MAX_BYTES, QUERY_MAX_PHRASINGS } from "../../../src/limits.ts";
import { type Factory, contractTest, failure, notes } from "./_subject.ts";

/** The cases of searching with several phrasings. */
export function searchPhrasingCases(factory: Factory): void {
  describe("search with several phrasings", () => {
    contractTest(factory, "a turn only the second phrasing finds is a hit, found_by [1]; without queries no hit has found_by", async ({ a }) => {
      const [vault] = await notes(a, "s", "the deploy key lives in vault", "lunch was good");
      expect((await a.search({ query: "zanzibar" })).hits).toEqual([]);
      const { hits } = await a.search({ query: "zanzibar", queries: ["vault"] });
      expect(hits.map((h) => [h.lsn, h.matched, h.found_by])).toEqual([[vault!, ["vault"], [1]]]);
      expect(hits[0]!.snippet).toContain("vault");
      expect((await a.search({ query: "vault" })).hits.map((h) => Object.hasOwn(h, "found_by"))).toEqual([false]);
    });

    contractTest(factory, "a turn both phrasings find ranks above turns only one finds, and names both", async ({ a }) => {
      const [kestrel, osprey, both] = await notes(a, "s", "a kestrel hovered", "an osprey dived", "a kestrel chased the osprey");
      // Whatever each phrasing's own order, the turn in both lists is first: 1/(k+2) + 1/(k+2) > 1/(k+1).
      const alone = async (query: string) => (await a.search({ query })).hits.map((h) => h.lsn).sort((m, n) => m - n);
      expect([await alone("kestrel"), await alone("osprey")]).toEqual([
        [kestrel!, both!],
        [osprey!, both!],
      ]);
      const { hits } = await a.search({ query: "kestrel", queries: ["osprey"] });
      expect(hits[0]).toMatchObject({ lsn: both!, found_by: [0, 1] });
      expect(
        hits
          .slice(1)
          .map((h) => [h.lsn, h.found_by])
          .sort(([m], [n]) => Number(m) - Number(n)),
      ).toEqual([
        [kestrel!, [0]],
        [osprey!, [1]],
      ]);
      // Cut to the limit after fusing: the best fused hit alone.
      expect((await a.search({ query: "kestrel", queries: ["osprey"], limit: 1 })).hits.map((h) => h.lsn)).toEqual([both!]);
    });

    contractTest(factory, "the same phrasing twice finds its turns once each, found by both", async ({ a }) => {
      const [x, y] = await notes(a, "s", "alpha one", "alpha two");
      const { hits } = await a.search({ query: "alpha", queries: ["alpha"] });
      expect(hits.map((h) => h.lsn).sort((m, n) => m - n)).toEqual([x!, y!]);
      expect(hits.map((h) => h.found_by)).toEqual([
        [0, 1],
        [0, 1],
      ]);
      // Fused from identical lists, the order is that list's order.
      expect(hits.map((h) => h.lsn)).toEqual((await a.search({ query: "alpha" })).hits.map((h) => h.lsn));
    });

    contractTest(factory, "filters apply to every phrasing", async ({ a }) => {
      const [x] = await notes(a, "p/x", "alpha here");
      const [y] = await notes(a, "p/y", "beta there");
      await notes(a, "q", "alpha and beta elsewhere");
      const [u] = (await a.append({ session: "p/z", entries: [{ role: "user", content: "beta from the user" }] })).entries.map((e) => e.lsn);
      const lsns = async (i: Parameters<typeof a.search>[0]) => (await a.search(i)).hits.map((h) => h.lsn).sort((m, n) => m - n);
      expect(await lsns({ query: "alpha", queries: ["beta"], prefix: "p/" })).toEqual([x!, y!, u!]);
      expect(await lsns({ query: "alpha", queries: ["beta"], session: "p/y" })).toEqual([y!]);
      expect(await lsns({ query: "alpha", queries: ["beta"], role: "user" })).toEqual([u!]);
      expect(await lsns({ query: "alpha beta", queries: ["beta alpha"], all_words: true })).toEqual([(await a.search({ query: "elsewhere" })).hits[0]!.lsn]);
    });

    contractTest(factory, "another tenant's turns are found by no phrasing", async ({ a, b }) => {
      await notes(b, "s", "the vault is bob's");
      const [mine] = await notes(a, "s", "my kestrel");
      expect((await a.search({ query: "kestrel", queries: ["vault"] })).hits.map((h) => [h.lsn, h.found_by])).toEqual([[mine!, [0]]]);
    });

    contractTest(factory, "a bad phrasing is refused naming queries.N, and nothing is searched", async (s) => {
      const { a } = s;
      await notes(a, "s", "the deploy key lives in vault");
      const before = s.trace?.().statements;
      expect(await failure(a.search({ query: "vault", queries: ["key", "  !!! "] }))).toEqual({ code: "invalid_input", field: "queries.1" });
      expect(await failure(a.search({ query: "vault", queries: [""] }))).toEqual({ code: "invalid_input", field: "queries.0" });
      expect(await failure(a.search({ query: "vault", queries: ["key", "x".repeat(QUERY_MAX_BYTES + 1)] }))).toEqual({ code: "too_large", field: "queries.1" });
      expect(await failure(a.search({ query: "vault", queries: ["key", 7 as unknown as string] }))).toEqual({ code: "invalid_input", field: "queries.1" });
      expect(await failure(a.search({ query: "vault", queries: [] }))).toEqual({ code: "invalid_input", field: "queries" });
      const many = Array.from({ length: QUERY_MAX_PHRASINGS + 1 }, (_, i) => `vault ${i}`);
      expect(await failure(a.search({ query: "vault", queries: many }))).toEqual({ code: "too_large", field: "queries" });
      if (before !== undefined) expect(s.trace!().statements).toBe(before);
      // The limit itself passes, and a phrasing at the byte limit too.
      expect((await a.search({ query: "vault", queries: many.slice(0, QUERY_MAX_PHRASINGS) })).hits).toHaveLength(1);
      expect((await a.search({ query: "vault", queries: [`vault ${"x".repeat(QUERY_MAX_BYTES - 6)}`] })).hits).toHaveLength(1);
    });
  });
}
