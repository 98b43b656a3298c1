/** Fusing several phrasings by reciprocal rank (src/search/fuse.ts; DESIGN.md 11, issue 28), without an engine. */
import { describe, expect, test } from "bun:test";
import type { SearchInput } from "../../src/schema/ops.ts";
import type { SearchHit, SearchResult } from "../../src/schema/results.ts";
import { PHRASING_DEPTH, RRF_K, fuse, searchPhrasings } from "../../src/search/fuse.ts";

/** A hit with an LSN, the words it matched and a snippet naming where it came from. */
function hit(lsn: number, from: string, matched: string[] = [from]): SearchHit {
  return { lsn, kind: "turn", session: "s", role: "note", snippet: `${from} #${lsn}`, score: lsn, matched };
}

function list(from: string, ...lsns: number[]): SearchResult {
  return { hits: lsns.map((l) => hit(l, from)) };
}

describe("fuse", () => {
  test("a hit found by two phrasings beats one found by one, even at its rank 1", () => {
    const { hits } = fuse([list("a", 1, 2, 3), list("b", 4, 3)], 10);
    // 3: 1/(k+3) + 1/(k+2); 1 and 4: 1/(k+1) each (1 first: the earlier phrasing); 2: 1/(k+2).
    expect(hits.map((h) => [h.lsn, h.found_by])).toEqual([
      [3, [0, 1]],
      [1, [0]],
      [4, [1]],
      [2, [0]],
    ]);
  });

  test("the snippet, score and matched are those of the phrasing that ranked the hit best; the earlier one on a tie", () => {
    const { hits } = fuse([list("a", 1, 2), list("b", 2, 1), list("c", 3, 1)], 10);
    const by = new Map(hits.map((h) => [h.lsn, h]));
    expect([by.get(1)!.snippet, by.get(1)!.matched, by.get(1)!.found_by]).toEqual(["a #1", ["a"], [0, 1, 2]]);
    expect([by.get(2)!.snippet, by.get(2)!.found_by]).toEqual(["b #2", [0, 1]]);
  });

  test("an LSN a list names twice counts once, at its better place; the cut to the limit comes after fusing", () => {
    const fused = fuse([list("a", 5, 6, 5), list("b", 6)], 10);
    expect(fused.hits.map((h) => [h.lsn, h.found_by])).toEqual([
      [6, [0, 1]],
      [5, [0]],
    ]);
    // 3 (ranks 3 and 1) against 2 (ranks 2 and 2): 1/63 + 1/61 > 2/62, and 1 (rank 1 alone) is below both.
    expect(fuse([list("a", 1, 2, 3), list("b", 3, 2)], 1).hits.map((h) => h.lsn)).toEqual([3]);
  });

  test("fused scores follow 1/(k + rank) with k = 60", () => {
    expect(RRF_K).toBe(60);
    const fill = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + i);
    // Rank 1 in one list against rank 61 in two: 1/61 < 2/121, the hit both found wins.
    expect(fuse([list("a", 1, ...fill(59, 100), 2), list("b", ...fill(60, 200), 2)], 1).hits[0]!.lsn).toBe(2);
    // Against rank 62 in two: 2/122 is 1/61, a tie, and the better best rank wins it.
    expect(fuse([list("a", 1, ...fill(60, 100), 2), list("b", ...fill(61, 200), 2)], 1).hits[0]!.lsn).toBe(1);
  });
});

describe("searchPhrasings", () => {
  const input = (more: Partial<SearchInput>): SearchInput => ({ query: "alpha", ...more });

  test("without queries the engine is called once with the input as given, and hits have no found_by", () => {
    const seen: SearchInput[] = [];
    const r = searchPhrasings(input({ limit: 5 }), (i) => {
      seen.push(i);
      return list("a", 1);
    });
    expect(seen).toEqual([{ query: "alpha", limit: 5 }]);
    expect(r.hits[0]).not.toHaveProperty("found_by");
  });

  test("each phrasing is searched with the same filters, deeper than a small limit, and fused to the limit", () => {
    const seen: SearchInput[] = [];
    const r = searchPhrasings(input({ queries: ["beta", "gamma"], session: "s", role: "user", limit: 2 }), (i) => {
      seen.push(i);
      return list(i.query, ...{ alpha: [1, 2, 3], beta: [3, 4], gamma: [4, 3] }[i.query]!);
    });
    expect(seen).toEqual(["alpha", "beta", "gamma"].map((query) => ({ query, session: "s", role: "user", limit: PHRASING_DEPTH })));
    expect(r.hits.map((h) => [h.lsn, h.found_by])).toEqual([
      [3, [0, 1, 2]],
      [4, [1, 2]],
    ]);
    expect(searchPhrasings(input({ queries: ["beta"], limit: 50 }), (i) => ({ hits: [hit(i.limit!, i.query)] })).hits[0]!.lsn).toBe(50);
  });

  test("an asynchronous engine is asked one phrasing after another, never two at once", async () => {
    let running = 0;
    let most = 0;
    const r = await searchPhrasings(input({ queries: ["beta", "gamma"] }), async (i) => {
      most = Math.max(most, ++running);
      await Promise.resolve();
      running--;
      return list(i.query, i.query.length);
    });
    expect(most).toBe(1);
    expect(r.hits.map((h) => [h.lsn, h.found_by])).toEqual([
      [5, [0, 2]],
      [4, [1]],
    ]);
  });
});
