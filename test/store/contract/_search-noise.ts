/**
 * What search leaves out, lifts and bounds, on every engine (DESIGN.md 11,
 * "Noise" and "Cost"): a remembered note above captured chatter saying the
 * same, bookkeeping and zerodb's own output only with `include_noise`, a
 * turn found under more than a word's list of other rows (another tenant's,
 * or noise), and a bounded snippet from a 3 MiB turn.
 */
import { describe, expect } from "bun:test";
import type { Memory } from "../../../src/store/types.ts";
import { type Factory, contractTest } from "./_subject.ts";

/** More rows than the first stage reads of one word's list (CANDIDATES_PER_TERM, 1,000, on both engines). */
const PAST_A_LIST = 1100;

/** Appends `n` notes made by `content(i)` to a session, 220 per append. */
async function many(m: Memory, session: string, n: number, content: (i: number) => string, meta?: Record<string, unknown>): Promise<void> {
  for (let i = 0; i < n; i += 220)
    await m.append({
      session,
      entries: Array.from({ length: Math.min(220, n - i) }, (_, k) => ({ role: "note" as const, content: content(i + k), ...(meta ? { meta } : {}) })),
    });
}

/** The noise and size cases. */
export function searchNoiseCases(factory: Factory): void {
  describe("search noise and size", () => {
    contractTest(factory, "what the user chose to remember ranks above captured chatter that says the same", async ({ a }) => {
      await a.append({ session: "notes", entries: [{ role: "note", content: "the deploy key lives in the vault" }] });
      await a.append({
        session: "p/cap",
        entries: [
          { role: "assistant", content: "the deploy key lives in the vault", meta: { kind: "reply", position: 1 } },
          { role: "tool", content: "the deploy key lives in the vault", meta: { kind: "tool_result", position: 2 } },
        ],
      });
      const r = await a.search({ query: "where is the deploy key", limit: 3 });
      expect(r.hits.map((h) => h.session)).toEqual(["notes", "p/cap", "p/cap"]);
      expect(r.hits[0]!.role).toBe("note");
    });

    contractTest(factory, "bookkeeping and zerodb's own captured output are left out unless include_noise", async ({ a }) => {
      const lsns = (
        await a.append({
          session: "p/cap",
          entries: [
            { role: "note", content: "[queue-operation] zebra", meta: { type: "queue-operation", position: 0 } },
            { role: "tool", content: "1 hit for zebra", meta: { kind: "tool_result", noise: "zerodb", position: 1 } },
            { role: "system", content: "# zerodb memory of this project zebra", meta: { kind: "system", noise: "bookkeeping", position: 2 } },
            { role: "user", content: "the zebra crossing", meta: { kind: "prompt", position: 3 } },
          ],
        })
      ).entries.map((e) => e.lsn);
      expect((await a.search({ query: "zebra" })).hits.map((h) => h.lsn)).toEqual([lsns[3]!]);
      expect((await a.search({ query: "zebra", include_noise: true })).hits.map((h) => h.lsn).sort((x, y) => x - y)).toEqual(lsns);
    });

    contractTest(factory, "a turn is found under more than a word's list of another tenant's rows, and of its own noise", async ({ a, b }) => {
      const [mine] = (await a.append({ session: "x", entries: [{ role: "note", content: "zebra crossing near the office" }] })).entries.map((e) => e.lsn);
      await many(b, "x", PAST_A_LIST, (i) => `zebra crossing ${i}`);
      expect((await a.search({ query: "zebra crossing", limit: 5 })).hits.map((h) => h.lsn)).toEqual([mine!]);
      const [okapi] = (await a.append({ session: "z", entries: [{ role: "note", content: "okapi sighting" }] })).entries.map((e) => e.lsn);
      await many(a, "y", PAST_A_LIST, () => "okapi", { kind: "system", noise: "bookkeeping" });
      expect((await a.search({ query: "okapi" })).hits.map((h) => h.lsn)).toEqual([okapi!]);
    });

    contractTest(factory, "a search matching one 3 MiB turn full of its words answers with a bounded snippet", async ({ a }) => {
      const big = "alpha bravo ".repeat(Math.floor((3 * 2 ** 20) / 12));
      await a.append({
        session: "big",
        entries: [
          { role: "tool", content: big },
          { role: "note", content: "alpha and bravo, once" },
        ],
      });
      const r = await a.search({ query: "alpha bravo" });
      expect(r.hits).toHaveLength(2);
      for (const h of r.hits) expect(h.snippet.length).toBeLessThan(400);
      expect(r.hits.find((h) => h.role === "tool")!.snippet.endsWith("…")).toBe(true);
    });
  });
}
