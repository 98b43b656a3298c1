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

    contractTest(factory, "the reply or tool result right after a match is a hit too, naming the turn it follows", async ({ a }) => {
      const lsns = (
        await a.append({
          session: "s",
          entries: [
            { role: "user", content: "the push service keeps growing, can you profile its heap?" },
            { role: "assistant", content: "go tool pprof -top http://push-1:6060/debug/pprof/heap", meta: { kind: "tool_call" } },
            { role: "tool", content: "Showing nodes accounting for 2.1GB, 96.3% of 2.18GB total", meta: { kind: "tool_result" } },
            { role: "assistant", content: "Disconnected sockets are never removed from the hub's map." },
            { role: "user", content: "thanks, unrelated: rename the billing module" },
            { role: "assistant", content: "Renamed it to invoicing." },
          ],
        })
      ).entries.map((e) => e.lsn);
      const [prompt, call, result, reply] = lsns;
      const { hits } = await a.search({ query: "pprof heap" });
      const byLsn = new Map(hits.map((h) => [h.lsn, h]));
      // The call holds the words; its result and the reply that follows hold none, and name it.
      expect(byLsn.get(call!)?.matched).toEqual(["pprof", "heap"]);
      expect(byLsn.get(call!)?.follows).toBeUndefined();
      expect([byLsn.get(result!)?.matched, byLsn.get(result!)?.follows]).toEqual([[], call!]);
      expect(byLsn.get(reply!)?.follows).toBe(call!);
      // They rank below the turn they follow; the turns after the next prompt are another exchange.
      expect(hits.findIndex((h) => h.lsn === result)).toBeGreaterThan(hits.findIndex((h) => h.lsn === call));
      expect(hits.map((h) => h.lsn)).not.toContain(lsns[4]!);
      expect(hits.map((h) => h.lsn)).not.toContain(lsns[5]!);
      expect(byLsn.get(prompt!)?.matched).toEqual(["heap"]);
      // Requiring every word keeps only the turns that hold them.
      expect((await a.search({ query: "pprof heap", all_words: true })).hits.map((h) => h.lsn)).toEqual([call!]);
    });

    contractTest(factory, "a note after a matching note is not a hit: notes stand alone", async ({ a }) => {
      const [first] = await notes(a, "s", "the deploy key lives in vault", "lunch was good");
      expect((await a.search({ query: "vault" })).hits.map((h) => h.lsn)).toEqual([first!]);
    });

    contractTest(factory, "a word the memory does not hold finds nothing", async ({ a }) => {
      await notes(a, "s", "the deploy key lives in vault");
      expect(await a.search({ query: "zanzibar" })).toEqual({ hits: [] });
    });
  });
}
