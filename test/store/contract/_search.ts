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

    contractTest(factory, "a word the memory never holds finds its synonyms; a word it holds does not", async ({ a }) => {
      const [invoices, bill] = await notes(a, "s", "voided the duplicate invoices with a script", "the bill of materials is in the wiki");
      await notes(a, "s", "the audit log keeps every row");
      // `bills` occurs (as `bill`): only that turn, no synonym is looked for.
      expect((await a.search({ query: "bills" })).hits.map((h) => h.lsn)).toEqual([bill!]);
      // `flicker` occurs nowhere: the turn that says `flashing` answers, naming the word that was asked.
      const [flash] = await notes(a, "s", "the payment field was flashing on every keystroke");
      const { hits } = await a.search({ query: "why did the payment field flicker" });
      expect(hits[0]?.lsn).toBe(flash!);
      expect(hits[0]?.matched).toContain("flicker");
      expect(hits[0]?.snippet).toContain("flashing");
      // Asked alone, too, and with every word required.
      expect((await a.search({ query: "flicker" })).hits.map((h) => h.lsn)).toEqual([flash!]);
      expect((await a.search({ query: "payment flicker", all_words: true })).hits.map((h) => h.lsn)).toEqual([flash!]);
      expect((await a.search({ query: "invoice" })).hits.map((h) => h.lsn)).toEqual([invoices!]);
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

    contractTest(factory, "a tool call's result and a prompt's replies are hits too, naming the match they follow", async ({ a }) => {
      const lsns = (
        await a.append({
          session: "s",
          entries: [
            { role: "user", content: "the push service keeps growing, can you profile its heap?" },
            { role: "assistant", content: "go tool pprof -top http://push-1:6060/debug/pprof/heap", meta: { kind: "tool_call" } },
            { role: "tool", content: "Showing nodes accounting for 2.1GB, 96.3% of 2.18GB total", meta: { kind: "tool_result" } },
            { role: "assistant", content: "Disconnected sockets are never removed from the hub's map." },
            { role: "user", content: "why is the journal so big?" },
            { role: "assistant", content: "Let me look.", meta: { kind: "reply" } },
            { role: "assistant", content: "du -sh /var/log/*", meta: { kind: "tool_call" } },
            { role: "tool", content: "9.1G /var/log/x", meta: { kind: "tool_result" } },
            { role: "assistant", content: "Nothing caps it: I set SystemMaxUse=2G.", meta: { kind: "reply" } },
            { role: "user", content: "thanks, unrelated: rename the billing module" },
            { role: "assistant", content: "Renamed it to invoicing." },
          ],
        })
      ).entries.map((e) => e.lsn);
      const [prompt, call, result, reply, question, first, , listing, closing, next, renamed] = lsns;
      const hits = async (query: string) => new Map((await a.search({ query })).hits.map((h) => [h.lsn, h]));
      // The call holds the words; its result holds none, and names it.
      const pprof = await hits("pprof heap");
      expect(pprof.get(call!)?.matched).toEqual(["pprof", "heap"]);
      expect(pprof.get(call!)?.follows).toBeUndefined();
      expect([pprof.get(result!)?.matched, pprof.get(result!)?.follows]).toEqual([[], call!]);
      expect(pprof.get(prompt!)?.matched).toEqual(["heap"]);
      // The prompt holding "heap" is answered by the reply that closes its exchange, after the tool turns.
      expect(pprof.get(reply!)?.follows).toBe(prompt!);
      const ranked = [...pprof.keys()];
      expect(ranked.indexOf(result!)).toBeGreaterThan(ranked.indexOf(call!));
      // A prompt's first reply and the reply that closes its exchange follow it; the tool turns between do not.
      const journal = await hits("journal");
      expect([...journal.entries()].map(([l, h]) => [l, h.follows])).toEqual([
        [question!, undefined],
        [closing!, question!],
        [first!, question!],
      ]);
      expect(journal.has(listing!)).toBe(false);
      // The next prompt begins another exchange.
      expect((await hits("billing")).has(renamed!)).toBe(true);
      expect(journal.has(next!) || journal.has(renamed!)).toBe(false);
      // Requiring every word keeps only the turns that hold them.
      expect((await a.search({ query: "pprof heap", all_words: true })).hits.map((h) => h.lsn)).toEqual([call!]);
    });

    contractTest(factory, "calls made at once are each followed by the result that answers their id", async ({ a }) => {
      // An agent makes three calls at once; their results come back after all of them, in another order.
      const call = (id: string, content: string) => ({ role: "assistant" as const, content, meta: { kind: "tool_call", tool_use_ids: [id] } });
      const result = (id: string, content: string) => ({ role: "tool" as const, content, meta: { kind: "tool_result", tool_use_ids: [id] } });
      const [grep, read, ls, readOut, lsOut, grepOut] = (
        await a.append({
          session: "s",
          entries: [
            call("t1", 'Grep {"pattern":"class \\\\w+Registry"}'),
            call("t2", 'Read {"file_path":"src/core/plugins.ts"}'),
            call("t3", 'Bash {"command":"ls docs/specs"}'),
            result("t2", "export const PLUGINS = [codex, gemini]"),
            result("t3", "(nothing listed)"),
            result("t1", "Found 4 files: agents.ts tools.ts hooks.ts themes.ts"),
          ],
        })
      ).entries.map((e) => e.lsn);
      const hits = new Map((await a.search({ query: "Registry" })).hits.map((h) => [h.lsn, h]));
      expect(hits.get(grep!)?.matched).toEqual(["Registry"]);
      expect(hits.get(grepOut!)?.follows).toBe(grep!);
      for (const other of [read, ls, readOut, lsOut]) expect(hits.has(other!)).toBe(false);
      // Without ids (a harness that names none), a call's result is the next result after it.
      const [bare, bareOut] = (
        await a.append({
          session: "u",
          entries: [
            { role: "assistant", content: "go tool pprof heap", meta: { kind: "tool_call" } },
            { role: "tool", content: "Showing nodes accounting for 2.1GB", meta: { kind: "tool_result" } },
          ],
        })
      ).entries.map((e) => e.lsn);
      expect((await a.search({ query: "pprof" })).hits.find((h) => h.lsn === bareOut!)?.follows).toBe(bare!);
    });

    contractTest(factory, "words side by side in the query's order rank above the same words apart", async ({ a }) => {
      // Same words, same length; the newer one (which wins a tie) holds them apart.
      const [together, apart] = await notes(a, "s", "we saw the upload client stall on a part", "upload stalled while the client saw a part");
      expect((await a.search({ query: "upload client" })).hits.map((h) => h.lsn)).toEqual([together!, apart!]);
    });

    contractTest(factory, "a note is not lifted by a neighbour that matches better; a captured turn is", async ({ a }) => {
      const [alone] = await notes(a, "n1", "alpha note");
      const [beside] = await notes(a, "n2", "alpha note", "alpha beta gamma note");
      const turns = async (session: string, ...contents: string[]) =>
        (await a.append({ session, entries: contents.map((content) => ({ role: "user" as const, content })) })).entries.map((e) => e.lsn);
      const [turnAlone] = await turns("t1", "alpha note");
      const [turnBeside] = await turns("t2", "alpha note", "alpha beta gamma note");
      const score = new Map((await a.search({ query: "alpha beta gamma", limit: 20 })).hits.map((h) => [h.lsn, h.score]));
      expect(score.get(beside!)).toBe(score.get(alone!)!);
      expect(score.get(turnBeside!)!).toBeGreaterThan(score.get(turnAlone!)!);
    });

    contractTest(factory, "a note after a matching note is not a hit: notes stand alone", async ({ a }) => {
      const [first] = await notes(a, "s", "the deploy key lives in vault", "lunch was good");
      expect((await a.search({ query: "vault" })).hits.map((h) => h.lsn)).toEqual([first!]);
    });

    contractTest(factory, "a message its harness changed in place is found once, as it now reads", async ({ a }) => {
      const lsns = (
        await a.append({
          session: "s",
          entries: [
            { role: "assistant", content: "the quota is 40 requests a minute", meta: { message_id: "m1" } },
            { role: "assistant", content: "an unrelated reply about quota alerts", meta: { message_id: "m2" } },
            { role: "assistant", content: "the quota is 60 requests a minute", meta: { message_id: "m1", rewrite: "changed" } },
            { role: "assistant", content: "the first part of m3 mentions the quota", meta: { message_id: "m3" } },
            { role: "assistant", content: "and its added part names the quota again", meta: { message_id: "m3", rewrite: "added" } },
          ],
        })
      ).entries.map((e) => e.lsn);
      const [old, other, now, first, added] = lsns;
      const found = (await a.search({ query: "quota requests" })).hits.map((h) => h.lsn);
      expect(found).toContain(now!);
      expect(found).not.toContain(old!);
      // A message grown by parts keeps each part; another message is untouched.
      for (const l of [other!, first!, added!]) expect(found).toContain(l);
      // The earlier version is still there to read.
      expect((await a.read({ session: "s" })).turns.map((t) => t.lsn)).toContain(old!);
    });

    contractTest(factory, "a word the memory does not hold finds nothing", async ({ a }) => {
      await notes(a, "s", "the deploy key lives in vault");
      expect(await a.search({ query: "zanzibar" })).toEqual({ hits: [] });
    });
  });
}
