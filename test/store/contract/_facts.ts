/** fact_set, fact_get, fact_list (history kept on the tape) and link_add. */
import { describe, expect } from "bun:test";
import { type Factory, contractTest, failure } from "./_subject.ts";

/** The fact and link cases. */
export function factCases(factory: Factory): void {
  describe("facts and links", () => {
    contractTest(factory, "fact_set then fact_get gives the value back, any JSON value", async ({ a }) => {
      for (const [key, value] of [
        ["proj/owner", { name: "alice", tags: ["x"] }],
        ["n", 42],
        ["s", "plain"],
        ["z", null],
        ["b", false],
      ] as const) {
        const w = await a.factSet({ key, value });
        expect(w.duplicate).toBe(false);
        expect(await a.factGet({ key })).toEqual({ key, value, lsn: w.lsn });
      }
    });

    contractTest(factory, "setting a key again supersedes its value; its history stays on the tape until forgotten", async ({ a }) => {
      const one = await a.factSet({ key: "k", value: 1 });
      const two = await a.factSet({ key: "k", value: 2 });
      expect(two.lsn).toBeGreaterThan(one.lsn);
      expect(await a.factGet({ key: "k" })).toEqual({ key: "k", value: 2, lsn: two.lsn });
      expect((await a.factList({})).facts).toEqual([{ key: "k", value: 2, lsn: two.lsn }]);
      // Both values are on the tape: forgetting the key hides each of them.
      expect(await a.forget({ selector: { fact: "k" }, dry_run: true })).toMatchObject({ hidden: 2, dry_run: true });
    });

    contractTest(factory, "fact_get of a key never set is not_found", async ({ a }) => {
      expect((await failure(a.factGet({ key: "missing" }))).code).toBe("not_found");
    });

    contractTest(factory, "fact_list by prefix, in key order, paged", async ({ a }) => {
      for (const key of ["p/b", "p/a", "p/c", "q/a"]) await a.factSet({ key, value: key });
      expect((await a.factList({ prefix: "p/" })).facts.map((f) => f.key)).toEqual(["p/a", "p/b", "p/c"]);
      const first = await a.factList({ prefix: "p/", limit: 2 });
      expect(first.facts.map((f) => f.key)).toEqual(["p/a", "p/b"]);
      expect(first.next).not.toBeNull();
      const second = await a.factList({ prefix: "p/", limit: 2, after: first.next! });
      expect(second).toEqual({ facts: [expect.objectContaining({ key: "p/c", value: "p/c" })], next: null });
    });

    contractTest(factory, "fact_list leaves out capture's bookkeeping facts unless its prefix looks inside capture/", async ({ a }) => {
      const own = "capture/source/0123456789abcdef0123456789abcdef";
      for (const key of ["capture/plan", "capture/source", own, "capture/sourcez", "deploy/key"]) await a.factSet({ key, value: key });
      const keys = async (i: Parameters<typeof a.factList>[0]) => (await a.factList(i)).facts.map((f) => f.key);
      expect(await keys({})).toEqual(["capture/plan", "capture/source", "capture/sourcez", "deploy/key"]);
      expect(await keys({ prefix: "c" })).toEqual(["capture/plan", "capture/source", "capture/sourcez"]);
      expect(await keys({ prefix: "capture/" })).toEqual(["capture/plan", "capture/source", own, "capture/sourcez"]);
      expect(await keys({ prefix: "capture/source/" })).toEqual([own]);
      // Paging steps over them, and they are still read by key.
      const first = await a.factList({ limit: 2 });
      expect((await a.factList({ limit: 2, after: first.next! })).facts.map((f) => f.key)).toEqual(["capture/sourcez", "deploy/key"]);
      expect((await a.factGet({ key: own })).value).toBe(own);
    });

    contractTest(factory, "link_add takes http and https URLs (never fetched) and search finds a link by its title", async ({ a }) => {
      const w = await a.linkAdd({ url: "https://example.com/runbook", title: "incident runbook", note: "read before paging" });
      expect(w.duplicate).toBe(false);
      const hits = (await a.search({ query: "runbook" })).hits.filter((h) => h.kind === "link");
      expect(hits.map((h) => [h.lsn, h.url])).toEqual([[w.lsn, "https://example.com/runbook"]]);
      expect(await failure(a.linkAdd({ url: "file:///etc/passwd" }))).toEqual({ code: "invalid_input", field: "url" });
      expect((await a.stats()).links.count).toBe(1);
    });
  });
}
