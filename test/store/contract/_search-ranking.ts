/**
 * What ranking promises on real transcripts (DESIGN.md 11, "Ranking"; issue
 * 28), on every engine: a compaction summary below the turn it summarizes, a
 * long turn judged by where its words are, and an older answer still found
 * among many newer turns holding the query's common words.
 */
import { describe, expect } from "bun:test";
import type { Memory } from "../../../src/store/types.ts";
import { type Factory, contractTest } from "./_subject.ts";

/** Filler prose of about `chars` characters that holds none of the query words of these cases. */
function filler(chars: number, seed: string): string {
  const words = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "eiusmod", "tempor", "incididunt", seed];
  const out: string[] = [];
  for (let i = 0, n = 0; n < chars; i++) {
    const w = words[(i * 7 + seed.length) % words.length]!;
    out.push(w);
    n += w.length + 1;
  }
  return out.join(" ");
}

/** Appends turns in batches of 200 (an append takes at most 256 entries); their LSNs. */
async function appendAll(
  m: Memory,
  session: string,
  entries: { role: "user" | "assistant" | "tool"; content: string; meta?: Record<string, unknown> }[],
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < entries.length; i += 200) out.push(...(await m.append({ session, entries: entries.slice(i, i + 200) })).entries.map((e) => e.lsn));
  return out;
}

/** The ranking cases. */
export function searchRankingCases(factory: Factory): void {
  describe("search ranking", () => {
    contractTest(factory, "a question asking what the user said finds their prompt above the assistant's notes about it", async ({ a }) => {
      const [prompt, thinking, reply] = await appendAll(a, "proj/s1", [
        { role: "user", content: "it's not a jsonl file, it's one json file with a syncState in it", meta: { kind: "prompt" } },
        {
          role: "assistant",
          content: `[thinking] The user says the tracking file is wrong. ${filler(1200, "metrics")} It was a JSONL assumption.`,
          meta: { kind: "reply" },
        },
        { role: "assistant", content: "Right: the tracking file is JSON, I will extend syncState.", meta: { kind: "reply" } },
      ]);
      const asked = (await a.search({ query: "What did the user say was wrong about assuming the tracking file is JSONL?" })).hits.map((h) => h.lsn);
      expect(asked[0]).toBe(prompt!);
      // The same words, not asking what the user said: the turn holding most of them leads.
      const plain = (await a.search({ query: "wrong assumption about the user's tracking file JSONL" })).hits.map((h) => h.lsn);
      expect(plain[0]).toBe(thinking!);
      expect(plain).toContain(reply!);
    });

    contractTest(factory, "a question asking what the user said after something finds the prompt after the match", async ({ a }) => {
      const [, failed, , next] = await appendAll(a, "proj/s1", [
        { role: "user", content: "ship the walrus service to staging", meta: { kind: "prompt" } },
        { role: "tool", content: "Deploy failed: the walrus migration timed out after 30 s", meta: { kind: "tool_result" } },
        { role: "assistant", content: "The deploy failed on the migration.", meta: { kind: "reply" } },
        { role: "user", content: "roll it back and retry with a longer timeout", meta: { kind: "prompt" } },
        { role: "assistant", content: "Rolled back; retrying with 120 s.", meta: { kind: "reply" } },
      ]);
      const hits = (await a.search({ query: "what did I say after the walrus deploy failed?" })).hits;
      expect(hits[0]!.lsn).toBe(next!);
      expect(hits[0]!.matched).toEqual([]);
      expect(hits[0]!.follows).toBe(failed!);
      // Not asking what was said after it: the turns holding the words lead.
      const plain = (await a.search({ query: "walrus deploy failed" })).hits.map((h) => h.lsn);
      expect(plain[0]).toBe(failed!);
    });

    contractTest(factory, "of two turns that match alike, the one whose conversation holds the rest of the query ranks first", async ({ a }) => {
      // Farther from the question than its neighbours, after another prompt: no neighbour lifts it, no prompt's answer.
      const lsns = await appendAll(a, "proj/walrus", [
        { role: "user", content: "why does the walrus deploy to staging keep failing?", meta: { kind: "prompt" } },
        ...["Looking at the logs.", "Reading the config.", "Checking the job.", "Comparing runs."].map((content) => ({
          role: "assistant" as const,
          content,
          meta: { kind: "reply" },
        })),
        { role: "user", content: "ok, and then?", meta: { kind: "prompt" } },
        { role: "assistant", content: "The timeout was raised to 30 s.", meta: { kind: "reply" } },
      ]);
      const inTopic = lsns.at(-1);
      // The same words in another conversation, newer (which would win a tie).
      const [elsewhere] = await appendAll(a, "proj/other", [{ role: "assistant", content: "The timeout was raised to 30 s.", meta: { kind: "reply" } }]);
      const hits = (await a.search({ query: "walrus staging deploy timeout raised" })).hits.map((h) => h.lsn);
      expect(hits.indexOf(inTopic!)).toBeGreaterThanOrEqual(0);
      expect(hits.indexOf(inTopic!)).toBeLessThan(hits.indexOf(elsewhere!));
    });

    contractTest(factory, "words of prose joined by a hyphen find a turn writing them apart, the compound itself first", async ({ a }) => {
      const [apart, common, exact] = await appendAll(a, "proj/s1", [
        { role: "assistant", content: "Added the DOM tests for the highlighter: 410 of them pass.", meta: { kind: "reply" } },
        { role: "tool", content: "tests passed; tests green; tests done", meta: { kind: "tool_result" } },
        { role: "assistant", content: "Switched to DOM-based highlighting in the transcript view.", meta: { kind: "reply" } },
        { role: "assistant", content: "The estimate is based on last week.", meta: { kind: "reply" } },
        { role: "assistant", content: "Colours are based on the theme.", meta: { kind: "reply" } },
        { role: "assistant", content: "Paging is cursor based.", meta: { kind: "reply" } },
      ]);
      // `DOM-based` is two words, not a phrase only the third turn holds: the turn that says `DOM tests` answers.
      const tests = (await a.search({ query: "how many DOM-based tests passed?" })).hits.map((h) => h.lsn);
      expect(tests[0]).toBe(apart!);
      expect(tests).toContain(common!);
      // Holding the words side by side, as the query writes them, still ranks first.
      const compound = (await a.search({ query: "DOM-based" })).hits.map((h) => h.lsn);
      expect(compound[0]).toBe(exact!);
      expect(compound).toContain(apart!);
    });

    contractTest(factory, "a compaction summary ranks below an original turn that matches as well", async ({ a }) => {
      const [original, summary] = await appendAll(a, "proj/s1", [
        { role: "tool", content: "Output: the zebrafish importer drops rows with a null checksum", meta: { kind: "tool_result" } },
        { role: "user", content: "Summary: the zebrafish importer drops rows with a null checksum", meta: { kind: "summary" } },
      ]);
      const hits = (await a.search({ query: "zebrafish importer null checksum" })).hits.map((h) => h.lsn);
      expect(hits.indexOf(original!)).toBeGreaterThanOrEqual(0);
      expect(hits.indexOf(summary!)).toBeGreaterThan(hits.indexOf(original!));
    });

    contractTest(factory, "a long turn is judged by where its words are, not by its first KiBs, and its snippet shows them", async ({ a }) => {
      const query = "flaky upload retry timeout";
      // The same length; one holds the words apart inside its first KiBs, the other together after 10 KiB.
      const apart = `flaky ${filler(900, "aa")} upload ${filler(900, "bb")} retry ${filler(900, "cc")} timeout ${filler(7000, "dd")}`;
      const together = `${filler(10_000, "ee")} the flaky upload retry timeout is thirty seconds`;
      const [lApart, lTogether] = await appendAll(a, "proj/s2", [
        { role: "tool", content: apart, meta: { kind: "tool_result" } },
        { role: "tool", content: together, meta: { kind: "tool_result" } },
      ]);
      const hits = (await a.search({ query })).hits;
      const at = (lsn: number) => hits.findIndex((h) => h.lsn === lsn);
      expect(at(lTogether!)).toBe(0);
      expect(at(lApart!)).toBeGreaterThan(0);
      expect(hits[0]!.snippet).toContain("[flaky] [upload] [retry] [timeout]");
    });

    contractTest(
      factory,
      "a long reference page that answers in one section, past its first KiBs, ranks above short turns holding a word each",
      async ({ a }) => {
        // A 60 KiB page: its first 4 KiB and most of the rest are about other things, the words stray once each,
        // and one section far in is about it. Scored as one 60 KiB text, BM25's length norm puts it below every short
        // turn holding one of the words; judged by its best passage, it answers.
        const section =
          "## Quartz pipeline rollback reasons\nA quartz pipeline rollback gives one of these reasons: quota, timeout, manual. " +
          "Each rollback of the quartz pipeline logs its reasons.";
        const page = [
          filler(4000, "hh"),
          "quartz",
          filler(12_000, "ii"),
          "pipeline",
          filler(12_000, "jj"),
          section,
          filler(12_000, "kk"),
          "rollback",
          filler(16_000, "ll"),
        ].join(" ");
        const [lPage] = await appendAll(a, "proj/ref", [{ role: "tool", content: page, meta: { kind: "tool_result" } }]);
        await appendAll(
          a,
          "proj/chat",
          ["quartz", "pipeline", "rollback", "reasons", "quartz pipeline"].flatMap((w, i) =>
            [0, 1].map((k) => ({ role: "assistant" as const, content: `${filler(80, `m${i}${k}`)} ${w} ${filler(40, `n${i}${k}`)}` })),
          ),
        );
        await appendAll(
          a,
          "proj/other",
          Array.from({ length: 300 }, (_, i) => ({ role: "assistant" as const, content: `${filler(60, "oo")} ${i}` })),
        );
        const hits = (await a.search({ query: "what are the quartz pipeline rollback reasons?", limit: 10 })).hits;
        expect(hits[0]?.lsn).toBe(lPage!);
        expect(hits[0]!.snippet).toContain("[pipeline] [rollback] [reasons]");
      },
    );

    contractTest(factory, "a long log holding the whole query many times over is not crowded out by short partial matches", async ({ a }) => {
      // What a plain BM25 ranks first: the words again and again in one long tool result. A hundred short
      // turns each hold three of the four words, so a choice of the pool by length alone would leave it out;
      // two thousand turns holding none of them give the words their weight.
      const words = ["vortex", "cache", "shard", "eviction"];
      const [log] = await appendAll(a, "proj/log", [
        { role: "tool", content: `${words.join(" ")} failed; ${filler(400, "ff")} `.repeat(40), meta: { kind: "tool_result" } },
      ]);
      const short = Array.from({ length: 100 }, (_, i) => ({
        role: "assistant" as const,
        content: `${words.filter((_, k) => k !== i % 4).join(" ")} note ${i}`,
      }));
      await appendAll(a, "proj/notes", short);
      await appendAll(
        a,
        "proj/other",
        Array.from({ length: 2000 }, (_, i) => ({ role: "assistant" as const, content: `${filler(60, "gg")} ${i}` })),
      );
      const hits = (await a.search({ query: "vortex cache shard eviction", limit: 10 })).hits.map((h) => h.lsn);
      expect(hits).toContain(log!);
    });

    contractTest(factory, "an older answer is still found among many newer turns holding the query's common words", async ({ a }) => {
      const [answer] = await appendAll(a, "proj/old", [
        { role: "tool", content: "Test Files 1 passed (1) Tests 16 passed (16)", meta: { kind: "tool_result" } },
      ]);
      // Newer: an identifier the answer lacks (one phrase: query.ts wordTerms), in fewer turns than a word's list holds (so its list is whole), and
      // more than a thousand turns each holding one or two of the answer's words: the three words together
      // weigh more than the phrase (BM25 ranks the answer first), but each word's list holds only its newest turns.
      const newer: { role: "tool"; content: string }[] = [];
      for (let i = 0; i < 900; i++) newer.push({ role: "tool", content: `ran quokka_lint_runner over module ${i}` });
      for (let i = 0; i < 1100; i++) newer.push({ role: "tool", content: `tests ${i % 2 === 0 ? "passed" : "16"} for shard ${i}` });
      for (let i = 0; i < 1100; i++) newer.push({ role: "tool", content: `build ${i % 2 === 0 ? "16" : "passed"} step ${i}` });
      await appendAll(a, "proj/new", newer);
      const hits = (await a.search({ query: "quokka_lint_runner tests 16 passed", limit: 10 })).hits.map((h) => h.lsn);
      expect(hits).toContain(answer!);
    });
  });
}
