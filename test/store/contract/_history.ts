/** The read-only listings the viewer needs: link_list, fact_history and activity (issue 18). */
import { describe, expect } from "bun:test";
import { type Factory, contractTest, failure } from "./_subject.ts";

/** The link_list, fact_history and activity cases. */
export function historyCases(factory: Factory): void {
  describe("link_list, fact_history and activity", () => {
    contractTest(factory, "link_list: live links newest first, paged by before, filtered by URL prefix", async ({ a }) => {
      const urls = ["https://example.com/a", "https://docs.example.org/b", "https://example.com/c", "http://example.com/d"];
      const lsns: number[] = [];
      for (const url of urls) lsns.push((await a.linkAdd({ url, title: `title of ${url}`, ...(url.endsWith("c") ? { note: "a note" } : {}) })).lsn);
      const all = await a.linkList();
      expect(all.next).toBeNull();
      expect(all.links.map((l) => l.url)).toEqual([...urls].reverse());
      expect(all.links[1]).toEqual({ lsn: lsns[2]!, url: urls[2]!, title: `title of ${urls[2]!}`, note: "a note", ts: expect.any(String) });
      expect(Date.parse(all.links[0]!.ts)).toBeGreaterThan(Date.now() - 600_000);
      const first = await a.linkList({ limit: 2 });
      expect(first.links.map((l) => l.lsn)).toEqual([lsns[3]!, lsns[2]!]);
      expect(first.next).toBe(lsns[2]!);
      const second = await a.linkList({ limit: 2, before: first.next! });
      expect(second).toEqual({ links: [expect.objectContaining({ lsn: lsns[1]! }), expect.objectContaining({ lsn: lsns[0]! })], next: null });
      expect((await a.linkList({ prefix: "https://example.com/" })).links.map((l) => l.url)).toEqual([urls[2]!, urls[0]!]);
      expect((await a.linkList({ prefix: "https://example.com/", limit: 1, before: lsns[2]! })).links.map((l) => l.url)).toEqual([urls[0]!]);
      expect(await a.linkList({ prefix: "ftp://" })).toEqual({ links: [], next: null });
    });

    contractTest(factory, "link_list: a forgotten link is gone, another tenant's never shows, bad input is refused", async ({ a, b }) => {
      const keep = await a.linkAdd({ url: "https://example.com/keep" });
      const gone = await a.linkAdd({ url: "https://example.com/gone", note: "private" });
      await b.linkAdd({ url: "https://example.com/bob" });
      await a.forget({ selector: { link: gone.lsn } });
      expect((await a.linkList()).links.map((l) => l.lsn)).toEqual([keep.lsn]);
      expect((await b.linkList()).links.map((l) => l.url)).toEqual(["https://example.com/bob"]);
      expect(await failure(a.linkList({ limit: 0 }))).toEqual({ code: "invalid_input", field: "limit" });
      expect(await failure(a.linkList({ before: -1 }))).toEqual({ code: "invalid_input", field: "before" });
      expect(await failure(a.linkList({ extra: 1 } as never))).toMatchObject({ code: "invalid_input" });
    });

    contractTest(factory, "fact_history: every live value newest first, paged; forgetting the key leaves none", async ({ a, b }) => {
      const values = [{ v: 1 }, "two", null, [3]];
      const lsns: number[] = [];
      for (const value of values) lsns.push((await a.factSet({ key: "deploy/target", value })).lsn);
      await a.factSet({ key: "deploy/other", value: "not this key" });
      await b.factSet({ key: "deploy/target", value: "bob's" });
      const all = await a.factHistory({ key: "deploy/target" });
      expect(all).toEqual({
        key: "deploy/target",
        values: [...values].reverse().map((value, i) => ({ value, lsn: lsns[values.length - 1 - i]!, ts: expect.any(String) })),
        next: null,
      });
      const first = await a.factHistory({ key: "deploy/target", limit: 3 });
      expect(first.values.map((v) => v.lsn)).toEqual([lsns[3]!, lsns[2]!, lsns[1]!]);
      expect(first.next).toBe(lsns[1]!);
      expect((await a.factHistory({ key: "deploy/target", before: first.next! })).values.map((v) => v.value)).toEqual([{ v: 1 }]);
      expect((await b.factHistory({ key: "deploy/target" })).values.map((v) => v.value)).toEqual(["bob's"]);
      expect(await a.factHistory({ key: "never/set" })).toEqual({ key: "never/set", values: [], next: null });
      await a.forget({ selector: { fact: "deploy/target" } });
      expect(await a.factHistory({ key: "deploy/target" })).toEqual({ key: "deploy/target", values: [], next: null });
      expect(await failure(a.factHistory({ key: "a//b" }))).toEqual({ code: "invalid_input", field: "key" });
    });

    contractTest(factory, "activity: today's turns and their bytes, one entry per day with turns, forgotten ones left out", async ({ a, b }) => {
      expect(await a.activity()).toEqual({ since: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), daily: [] });
      await a.append({
        session: "s",
        entries: [
          { role: "user", content: "12345" },
          { role: "assistant", content: "123" },
        ],
      });
      const gone = await a.append({ session: "t", entries: [{ role: "note", content: "forget me" }] });
      await a.factSet({ key: "k", value: "not a turn" });
      await b.append({ session: "s", entries: [{ role: "user", content: "bob's turn" }] });
      await a.forget({ selector: { turn: gone.entries[0]!.lsn } });
      const today = new Date().toISOString().slice(0, 10);
      const got = await a.activity({ days: 1 });
      // A run that crosses midnight UTC splits the turns over two days; the totals hold either way.
      expect(got.since <= today).toBe(true);
      expect(got.daily.reduce((n, d) => n + d.turns, 0)).toBe(2);
      expect(got.daily.reduce((n, d) => n + d.bytes, 0)).toBe(8);
      expect(got.daily.at(-1)!.day <= today).toBe(true);
      const since = new Date(Date.parse(`${today}T00:00:00Z`) - 365 * 86_400_000).toISOString().slice(0, 10);
      expect((await a.activity({ days: 366 })).since).toBe(since);
      expect(await failure(a.activity({ days: 0 }))).toEqual({ code: "invalid_input", field: "days" });
      expect(await failure(a.activity({ days: 367 }))).toEqual({ code: "invalid_input", field: "days" });
    });
  });
}
