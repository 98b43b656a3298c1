/**
 * How a query's words meet the stored text, on every engine (DESIGN.md 11,
 * "Query" and "Index"): a question's words and snippet, near forms, parts of
 * identifiers, text without spaces, `"phrases"` and `word*`, whatever a user
 * types, and a query holding an occurring word never answering nothing.
 */
import { describe, expect } from "bun:test";
import fc from "fast-check";
import { type Factory, contractTest, notes } from "./_subject.ts";

/** The query-word cases. */
export function searchWordCases(factory: Factory): void {
  describe("search words", () => {
    contractTest(factory, "a natural question finds the turn that answers it; the snippet marks and the hit names the words matched", async ({ a }) => {
      await a.append({
        session: "p/1",
        entries: [
          { role: "user", content: "The upload client retries every failed part three times." },
          { role: "assistant", content: "We turned off the retry in the upload client because it duplicated finished uploads." },
        ],
      });
      await a.append({ session: "p/2", entries: [{ role: "assistant", content: "The staging deploy timed out after 15 minutes." }] });
      const r = await a.search({ query: "why did we turn off the retry in the upload client?", limit: 3 });
      expect(r.hits[0]!.snippet).toContain("[turned] [off] the [retry] in the [upload] [client]");
      expect(r.hits[0]!.matched).toEqual(["turn", "off", "retry", "upload", "client"]);
      expect(r.hits.map((h) => h.matched.length)).toEqual([5, 3]);
    });

    contractTest(factory, "near forms, identifier parts and words inside Japanese and Chinese text are found", async ({ a }) => {
      const lsns = await notes(
        a,
        "p/1",
        "Reconnected after fixing the permissions on the deploy keys",
        "set uploadRetryCount to 3 in the client",
        "決済イベントの署名検証が失敗した。原因は生のリクエストボディではなかったこと",
        "推送服务的内存每天上涨两GB",
      );
      const first = async (query: string) => (await a.search({ query, limit: 1 })).hits[0]?.lsn;
      expect(await first("reconnect permission key")).toBe(lsns[0]!);
      expect(await first("retry count")).toBe(lsns[1]!);
      expect(await first("RetryCount")).toBe(lsns[1]!);
      expect(await first("署名検証")).toBe(lsns[2]!);
      expect(await first("検証")).toBe(lsns[2]!);
      expect(await first("署名の検証が失敗する原因は？")).toBe(lsns[2]!);
      expect(await first("内存上涨")).toBe(lsns[3]!);
    });

    contractTest(factory, "phrases and `word*` prefixes keep their meaning; all_words requires every word", async ({ a }) => {
      const lsns = await notes(a, "p/1", "the staging deploy failed", "deploy to staging tomorrow", "staging only");
      const found = async (query: string, extra = {}) => (await a.search({ query, ...extra })).hits.map((h) => h.lsn).sort((x, y) => x - y);
      expect(await found('"staging deploy"')).toEqual([lsns[0]!]);
      expect(await found("stag*")).toEqual(lsns);
      expect(await found("staging deploy", { all_words: true })).toEqual([lsns[0]!, lsns[1]!]);
      expect(await found("staging deploy")).toEqual(lsns);
    });

    contractTest(factory, "what a user types never fails: query operators and punctuation are plain words; a query past 4 KiB is too_large", async ({ a }) => {
      await notes(a, "s", 'deploy key "quoted" NEAR(a b) col:x 東京 uploadRetryCount');
      const queries = [
        "deploy AND key",
        "NEAR(a b)",
        '"unclosed',
        "col:x",
        "^deploy",
        "a OR b NOT c",
        "(((deploy",
        "deploy*key",
        "*deploy",
        "東京*",
        "\u0000deploy\u0001",
        "deploy & key | !x <-> y:*",
        Array.from({ length: 400 }, (_, i) => (i % 7 === 0 ? "deploy" : `x${i}`)).join(" "),
        "the the the",
      ];
      for (const q of queries) {
        const r = await a.search({ query: q, limit: 5 });
        expect(Array.isArray(r.hits), q.slice(0, 40)).toBe(true);
      }
      expect((await a.search({ query: "deploy AND key" })).hits).toHaveLength(1);
      expect((await a.search({ query: "the the the" })).hits).toEqual([]);
      const huge = Array.from({ length: 10_000 }, (_, i) => `w${i}`).join(" ");
      await expect(a.search({ query: huge })).rejects.toMatchObject({ code: "too_large", field: "query" });
    });

    contractTest(factory, "property: a query holding any occurring word, among unknown words and stopwords, finds something", async ({ a }) => {
      const vocab = ["deploy", "staging", "timeout", "vault", "retry", "upload", "cron", "shift", "twice", "client", "migration", "index"];
      const stored = Array.from({ length: 60 }, (_, i) => Array.from({ length: 8 }, (_, k) => vocab[(i * 7 + k * 3) % vocab.length]).join(" "));
      for (let i = 0; i < stored.length; i += 20) await notes(a, `s${i}`, ...stored.slice(i, i + 20));
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...vocab),
          fc.array(fc.stringMatching(/^[a-z]{3,9}$/), { maxLength: 6 }),
          fc.array(fc.constantFrom("what", "did", "we", "the", "why", "is"), { maxLength: 4 }),
          async (known, unknown, stops) => {
            const r = await a.search({ query: [...stops, ...unknown, known].join(" "), limit: 5 });
            expect(r.hits.length).toBeGreaterThan(0);
            expect(r.hits[0]!.matched.map((m) => m.toLowerCase())).toContain(known);
          },
        ),
        { numRuns: Number(process.env.ZERODB_FUZZ_RUNS ?? 100) },
      );
      // Only stopwords that occur: they are searched when nothing else is left, and when nothing else matches.
      await notes(a, "q", "what is it");
      expect((await a.search({ query: "what is it" })).hits).toHaveLength(1);
      expect((await a.search({ query: "what is qqqzzz" })).hits).toHaveLength(1);
    });
  });
}
