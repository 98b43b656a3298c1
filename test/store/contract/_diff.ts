/** diff: what was added between two points (DESIGN.md section 17, issue 33), never forgotten content. */
import { describe, expect } from "bun:test";
import { clockPast } from "./_as-of.ts";
import { type Factory, contractTest, failure, notes } from "./_subject.ts";

/** The diff cases. */
export function diffCases(factory: Factory): void {
  describe("diff", () => {
    contractTest(factory, "turns per session with their LSNs, facts with old and new values, links and objects", async ({ a, b }) => {
      const [s1] = await notes(a, "proj/one", "before the span");
      const f1 = await a.factSet({ key: "proj/mode", value: "draft" });
      const from = f1.lsn;
      const added = await notes(a, "proj/one", "first in span", "second in span");
      const [other] = await notes(a, "proj/two", "other session");
      await notes(b, "proj/one", "bob's turn, never in alice's diff");
      await a.factSet({ key: "proj/mode", value: "review" });
      const f3 = await a.factSet({ key: "proj/mode", value: { final: true } });
      const fresh = await a.factSet({ key: "proj/new", value: 1 });
      await a.factSet({ key: "elsewhere", value: "outside the prefix" });
      await a.linkAdd({ url: "https://example.com/spec" });
      const to = (await notes(a, "zzz/later", "the last turn"))[0]!;
      const d = await a.diff({ from, to, prefix: "proj/" });
      expect(d).toEqual({
        from,
        to,
        sessions: [
          { name: "proj/one", turns: 2, bytes: 27, lsns: [[added[0]!, added[1]!]] },
          { name: "proj/two", turns: 1, bytes: 13, lsns: [[other!, other!]] },
        ],
        facts: [
          { key: "proj/mode", sets: 2, old: { value: "draft", lsn: f1.lsn }, new: { value: { final: true }, lsn: f3.lsn } },
          { key: "proj/new", sets: 1, old: null, new: { value: 1, lsn: fresh.lsn } },
        ],
        forgets: [],
        links: 1,
        objects: 0,
        truncated: false,
      });
      expect(s1).toBeLessThan(from);
      // Without a prefix everything the span holds; with `to` left out, up to now.
      const all = await a.diff({ from, limit: 2 });
      expect(all.to).toBeGreaterThanOrEqual(to);
      expect(all.sessions.map((s) => s.name)).toEqual(["proj/one", "proj/two"]);
      expect(all.facts.map((f) => f.key)).toEqual(["elsewhere", "proj/mode"]);
      expect(all.truncated).toBe(true);
      // An empty span, and the same points as digits.
      expect(await a.diff({ from: to, to })).toEqual({ from: to, to, sessions: [], facts: [], forgets: [], links: 0, objects: 0, truncated: false });
      expect((await a.diff({ from: String(from), to: String(to), prefix: "proj/" })).sessions).toEqual(d.sessions);
      // Bob's memory in the same span holds only his turn.
      expect((await b.diff({ from, to })).sessions).toEqual([{ name: "proj/one", turns: 1, bytes: 33, lsns: [[added[1]! + 2, added[1]! + 2]] }]);
    });

    contractTest(factory, "forgets: their counts, kinds and hidden LSNs, never the forgotten content or names", async ({ a }) => {
      const [from] = await notes(a, "keep", "kept");
      const secret = await notes(a, "secret/project", "the albatross password", "more albatross");
      await a.factSet({ key: "secret/key", value: "albatross value" });
      const forgot = await a.forget({ selector: { session: "secret/project" } });
      const forgotFact = await a.forget({ selector: { fact: "secret/key" } });
      const d = await a.diff({ from: from! });
      expect(d.sessions).toEqual([]);
      expect(d.facts).toEqual([]);
      expect(d.forgets).toEqual([
        { lsn: forgot.lsn!, ts: expect.any(String), hidden: 2, kinds: { turn: 2 }, lsns: [[secret[0]!, secret[1]!]] },
        { lsn: forgotFact.lsn!, ts: expect.any(String), hidden: 1, kinds: { fact: 1 }, lsns: [[secret[1]! + 1, secret[1]! + 1]] },
      ]);
      const text = JSON.stringify(d);
      expect(text).not.toContain("albatross");
      expect(text).not.toContain("secret");
      // A span before the forgets shows no forget, and still not the forgotten turns (forget is stronger than history).
      const before = await a.diff({ from: 0, to: secret[1]! });
      expect(before.forgets).toEqual([]);
      expect(before.sessions.map((s) => s.name)).toEqual(["keep"]);
    });

    contractTest(factory, "points as times; bad points refused naming the field", async ({ a }) => {
      const [first] = await notes(a, "t", "one");
      const t1 = Date.parse((await a.read({ session: "t" })).turns[0]!.ts);
      await clockPast(t1 + 1);
      const [second] = await notes(a, "t", "two");
      const d = await a.diff({ from: new Date(t1).toISOString(), to: new Date(Date.now() + 60_000).toISOString() });
      expect(d.from).toBe(first!);
      expect(d.sessions).toEqual([{ name: "t", turns: 1, bytes: 3, lsns: [[second!, second!]] }]);
      expect(await failure(a.diff({ from: "whenever" }))).toEqual({ code: "invalid_input", field: "from" });
      expect(await failure(a.diff({ from: 1, to: "later" }))).toEqual({ code: "invalid_input", field: "to" });
      expect(await failure(a.diff({ from: second!, to: first! }))).toEqual({ code: "invalid_input", field: "to" });
      expect(await failure(a.diff({} as never))).toEqual({ code: "invalid_input", field: "from" });
      expect(await failure(a.diff({ from: 0, limit: 0 }))).toEqual({ code: "invalid_input", field: "limit" });
    });
  });
}
