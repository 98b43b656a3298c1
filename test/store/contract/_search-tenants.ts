/**
 * Search is per tenant on every engine (DESIGN.md 11, I5): which words are
 * widened to their synonyms, the lists of candidates and the statistics
 * behind `score` are the caller's tenant's alone, so nothing another tenant
 * writes moves one tenant's hits, their order, scores or matched words.
 */
import { describe, expect } from "bun:test";
import type { Memory } from "../../../src/store/types.ts";
import { type Factory, contractTest } from "./_subject.ts";

const QUERIES = ["bill march", "deploy rollback staging", "why did the deploy to staging fail", "invoice"];

/** Every field of every hit of each query, as the caller sees them. */
async function answers(m: Memory): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES) out.push((await m.search({ query, limit: 20 })).hits);
  return out;
}

/** The search-per-tenant cases. */
export function searchTenantCases(factory: Factory): void {
  describe("search per tenant", () => {
    contractTest(factory, "another tenant's writes change nothing of one tenant's hits, order, scores or matched words", async ({ a, b }) => {
      const bob = [
        "the invoice for march was sent twice",
        "deploy to staging failed: the rollback script could not find the previous release",
        "we rolled back staging by hand",
        "note: the march invoice job runs at 02:00",
        "deploy went fine on the second try",
        "the staging cluster is short on memory",
      ];
      await b.append({ session: "bob/work", entries: bob.map((content) => ({ role: "user" as const, content })) });
      const before = await answers(b);
      // `bill` widens to `invoice` only while bob's rows hold no `bill` (query.ts, widened).
      expect((before[0] as { matched: string[] }[]).length).toBeGreaterThan(0);
      // Alice writes the same words, many times, newer than bob's rows.
      for (let k = 0; k < 5; k++) {
        const entries = Array.from({ length: 250 }, (_, i) => ({
          role: "user" as const,
          content: `bill ${k * 250 + i}: deploy to staging, rollback and fail again in march`,
        }));
        await a.append({ session: `alice/${k}`, entries });
      }
      expect(await answers(b)).toEqual(before);
      // And bob's own writes still count.
      await b.append({ session: "bob/work", entries: [{ role: "user", content: "the bill for april" }] });
      expect(await answers(b)).not.toEqual(before);
    });
  });
}
