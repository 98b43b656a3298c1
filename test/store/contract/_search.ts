/** search basics (DESIGN.md 11): a word, near forms, a question, filters, and nothing for absent words. */
import { describe, expect } from "bun:test";
import { type Factory, contractTest, notes } from "./_subject.ts";

/** The search cases. */
export function searchCases(factory: Factory): void {
  describe("search", () => {
    contractTest(factory, "a word finds its turn, with the session, role, score and the words it matched", async ({ a }) => {
      const [lsn] = await notes(a, "proj/ops", "the deploy key lives in vault");
      await notes(a, "proj/ops", "lunch was good");
      const { hits } = await a.search({ query: "vault" });
      expect(hits.map((h) => [h.lsn, h.kind, h.session, h.role, h.matched])).toEqual([[lsn!, "turn", "proj/ops", "note", ["vault"]]]);
      expect(hits[0]!.snippet).toContain("vault");
      expect(typeof hits[0]!.score).toBe("number");
    });

    contractTest(factory, "near forms match: reconnected finds reconnect, permission finds permissions", async ({ a }) => {
      const [l1, l2] = await notes(a, "s", "the client reconnected after the outage", "check the file permissions first");
      expect((await a.search({ query: "reconnect" })).hits.map((h) => h.lsn)).toEqual([l1!]);
      expect((await a.search({ query: "permission" })).hits.map((h) => h.lsn)).toEqual([l2!]);
    });

    contractTest(factory, "a question in plain words finds the turn that answers it, first", async ({ a }) => {
      const [, , answer] = await notes(a, "s", "we chose PostgreSQL for the team server", "the cache is warmed at start", "the deploy key lives in vault");
      const { hits } = await a.search({ query: "where does the deploy key live?" });
      expect(hits[0]?.lsn).toBe(answer!);
    });

    contractTest(factory, "filters by session, prefix and role", async ({ a }) => {
      const [x] = await notes(a, "p/x", "alpha here");
      const [y] = await notes(a, "p/y", "alpha there");
      const [z] = (await a.append({ session: "q", entries: [{ role: "user", content: "alpha elsewhere" }] })).entries.map((e) => e.lsn);
      const lsns = async (i: Parameters<typeof a.search>[0]) => (await a.search(i)).hits.map((h) => h.lsn).sort((m, n) => m - n);
      expect(await lsns({ query: "alpha" })).toEqual([x!, y!, z!]);
      expect(await lsns({ query: "alpha", session: "p/x" })).toEqual([x!]);
      expect(await lsns({ query: "alpha", prefix: "p/" })).toEqual([x!, y!]);
      expect(await lsns({ query: "alpha", role: "user" })).toEqual([z!]);
    });

    contractTest(factory, "a word the memory does not hold finds nothing", async ({ a }) => {
      await notes(a, "s", "the deploy key lives in vault");
      expect(await a.search({ query: "zanzibar" })).toEqual({ hits: [] });
    });
  });
}
