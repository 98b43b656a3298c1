/** Search as a user asks it (DESIGN.md 11), on the SQLite engine in-process. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

function open() {
  const dir = tempDir();
  const store = openSqliteStore(dir.path);
  return {
    m: store.memory("local"),
    store,
    [Symbol.dispose]() {
      store.close();
      dir[Symbol.dispose]();
    },
  };
}

describe("search finds what was said", () => {
  test("a natural question finds the turn that answers it, and the hit says which words matched", async () => {
    using s = open();
    await s.m.append({
      session: "p/1",
      entries: [
        { role: "user", content: "The upload client retries every failed part three times." },
        { role: "assistant", content: "We turned off the retry in the upload client because it duplicated finished uploads." },
      ],
    });
    await s.m.append({ session: "p/2", entries: [{ role: "assistant", content: "The staging deploy timed out after 15 minutes." }] });
    const r = await s.m.search({ query: "why did we turn off the retry in the upload client?", limit: 3 });
    expect(r.hits[0]!.snippet).toContain("[turned] [off] the [retry] in the [upload] [client]");
    expect(r.hits[0]!.matched).toEqual(["turn", "off", "retry", "upload", "client"]);
    expect(r.hits.map((h) => h.matched.length)).toEqual([5, 3]);
  });

  test("near forms, identifier parts and words inside Japanese and Chinese text are found", async () => {
    using s = open();
    const { entries } = await s.m.append({
      session: "p/1",
      entries: [
        { role: "note", content: "Reconnected after fixing the permissions on the deploy keys" },
        { role: "note", content: "set uploadRetryCount to 3 in the client" },
        { role: "note", content: "決済イベントの署名検証が失敗した。原因は生のリクエストボディではなかったこと" },
        { role: "note", content: "推送服务的内存每天上涨两GB" },
      ],
    });
    const first = async (query: string) => (await s.m.search({ query, limit: 1 })).hits[0]?.lsn;
    expect(await first("reconnect permission key")).toBe(entries[0]!.lsn);
    expect(await first("retry count")).toBe(entries[1]!.lsn);
    expect(await first("RetryCount")).toBe(entries[1]!.lsn);
    expect(await first("署名検証")).toBe(entries[2]!.lsn);
    expect(await first("検証")).toBe(entries[2]!.lsn);
    expect(await first("署名の検証が失敗する原因は？")).toBe(entries[2]!.lsn);
    expect(await first("内存上涨")).toBe(entries[3]!.lsn);
  });

  test("phrases and prefixes keep their meaning; all_words requires every word", async () => {
    using s = open();
    const { entries } = await s.m.append({
      session: "p/1",
      entries: [
        { role: "note", content: "the staging deploy failed" },
        { role: "note", content: "deploy to staging tomorrow" },
        { role: "note", content: "staging only" },
      ],
    });
    const lsns = async (query: string, extra = {}) => (await s.m.search({ query, ...extra })).hits.map((h) => h.lsn).sort();
    expect(await lsns('"staging deploy"')).toEqual([entries[0]!.lsn]);
    expect(await lsns("stag*")).toEqual(entries.map((e) => e.lsn));
    expect(await lsns("staging deploy", { all_words: true })).toEqual([entries[0]!.lsn, entries[1]!.lsn]);
    expect(await lsns("staging deploy")).toEqual(entries.map((e) => e.lsn));
  });

  test("what the user chose to remember ranks above captured chatter that says the same", async () => {
    using s = open();
    await s.m.append({ session: "notes", entries: [{ role: "note", content: "the deploy key lives in the vault" }] });
    await s.m.append({
      session: "p/cap",
      entries: [
        { role: "assistant", content: "the deploy key lives in the vault", meta: { kind: "reply", position: 1 } },
        { role: "tool", content: "the deploy key lives in the vault", meta: { kind: "tool_result", position: 2 } },
      ],
    });
    const r = await s.m.search({ query: "where is the deploy key", limit: 3 });
    expect(r.hits.map((h) => h.session)).toEqual(["notes", "p/cap", "p/cap"]);
    expect(r.hits[0]!.role).toBe("note");
  });

  test("bookkeeping and zerodb's own captured output are left out unless include_noise", async () => {
    using s = open();
    const { entries } = await s.m.append({
      session: "p/cap",
      entries: [
        { role: "note", content: "[queue-operation] zebra", meta: { type: "queue-operation", position: 0 } },
        { role: "tool", content: "1 hit for zebra", meta: { kind: "tool_result", noise: "zerodb", position: 1 } },
        { role: "system", content: "# zerodb memory of this project zebra", meta: { kind: "system", noise: "bookkeeping", position: 2 } },
        { role: "user", content: "the zebra crossing", meta: { kind: "prompt", position: 3 } },
      ],
    });
    expect((await s.m.search({ query: "zebra" })).hits.map((h) => h.lsn)).toEqual([entries[3]!.lsn]);
    expect((await s.m.search({ query: "zebra", include_noise: true })).hits.map((h) => h.lsn).sort()).toEqual(entries.map((e) => e.lsn));
  });

  test("a search matching one 3 MiB turn full of its words answers with a bounded snippet", async () => {
    using s = open();
    const big = "alpha bravo ".repeat(Math.floor((3 * 2 ** 20) / 12));
    await s.m.append({
      session: "big",
      entries: [
        { role: "tool", content: big },
        { role: "note", content: "alpha and bravo, once" },
      ],
    });
    const r = await s.m.search({ query: "alpha bravo" });
    expect(r.hits).toHaveLength(2);
    for (const h of r.hits) expect(h.snippet.length).toBeLessThan(400);
    expect(r.hits.find((h) => h.role === "tool")!.snippet.endsWith("…")).toBe(true);
  });

  test("tenants: another tenant's words are never found and never change what this tenant sees", async () => {
    using s = open();
    const other = s.store.memory("other");
    await other.append({ session: "x", entries: [{ role: "note", content: "zebra secret of the other tenant" }] });
    expect((await s.m.search({ query: "zebra" })).hits).toEqual([]);
    await s.m.append({ session: "x", entries: [{ role: "note", content: "zebra" }] });
    const mine = await s.m.search({ query: "zebra secret" });
    expect(mine.hits.map((h) => h.matched)).toEqual([["zebra"]]);
  });

  test("a tenant whose words are buried under another tenant's many rows still finds them (the index's lists are shared)", async () => {
    using s = open();
    const mine = await s.m.append({ session: "x", entries: [{ role: "note", content: "zebra crossing near the office" }] });
    const other = s.store.memory("other");
    for (let i = 0; i < 20; i++)
      await other.append({ session: "x", entries: Array.from({ length: 256 }, (_, k) => ({ role: "note" as const, content: `zebra crossing ${i} ${k}` })) });
    const r = await s.m.search({ query: "zebra crossing", limit: 5 });
    expect(r.hits.map((h) => h.lsn)).toEqual([mine.entries[0]!.lsn]);
    // Noise buries a turn the same way: the filtered lists find it.
    const first = (await s.m.append({ session: "z", entries: [{ role: "note", content: "okapi sighting" }] })).entries[0]!.lsn;
    for (let i = 0; i < 20; i++)
      await s.m.append({
        session: "y",
        entries: Array.from({ length: 256 }, () => ({ role: "note" as const, content: "okapi", meta: { kind: "system", noise: "bookkeeping" } })),
      });
    expect((await s.m.search({ query: "okapi" })).hits.map((h) => h.lsn)).toEqual([first]);
  });
});

describe("a query holding a word that occurs never comes back empty", () => {
  const word = fc.stringMatching(/^[a-z]{3,9}$/);
  test("property: any occurring word among unknown words and stopwords finds something", async () => {
    using s = open();
    const vocab = ["deploy", "staging", "timeout", "vault", "retry", "upload", "cron", "shift", "twice", "client", "migration", "index"];
    const stored: string[] = [];
    for (let i = 0; i < 60; i++) {
      const text = Array.from({ length: 8 }, (_, k) => vocab[(i * 7 + k * 3) % vocab.length]).join(" ");
      stored.push(text);
    }
    for (let i = 0; i < stored.length; i += 20)
      await s.m.append({ session: `s${i}`, entries: stored.slice(i, i + 20).map((content) => ({ role: "note" as const, content })) });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...vocab),
        fc.array(word, { maxLength: 6 }),
        fc.array(fc.constantFrom("what", "did", "we", "the", "why", "is"), { maxLength: 4 }),
        async (known, unknown, stops) => {
          const query = [...stops, ...unknown, known].sort(() => 0).join(" ");
          const r = await s.m.search({ query, limit: 5 });
          expect(r.hits.length).toBeGreaterThan(0);
          expect(r.hits[0]!.matched.map((m) => m.toLowerCase())).toContain(known);
        },
      ),
      { numRuns: Number(process.env.ZERODB_FUZZ_RUNS ?? 100) },
    );
    // Only stopwords that occur: they are searched when nothing else is left, and when nothing else matches.
    await s.m.append({ session: "q", entries: [{ role: "note", content: "what is it" }] });
    expect((await s.m.search({ query: "what is it" })).hits).toHaveLength(1);
    expect((await s.m.search({ query: "what is qqqzzz" })).hits).toHaveLength(1);
  });
});
