/**
 * Several phrasings of one search, fused by rank (DESIGN.md 11, "Several
 * phrasings"; D6). zerodb is lexical: it finds the words a turn holds, not
 * what they mean. The model that calls `search` knows what it means and can
 * say it again in the words the answer itself would use (the error text, the
 * command, the file name), so meaning enters through `queries`, with no model
 * of zerodb's own.
 *
 * Every engine goes through here (src/store/<engine>/store.ts wraps its
 * `search` with searchPhrasings): each phrasing is one search of the engine,
 * with the same filters, and the lists are fused by reciprocal rank (RRF,
 * Cormack, Clarke and Büttcher, SIGIR 2009): a hit scores the sum of
 * 1 / (RRF_K + rank) over the phrasings that found it, rank 1 being a
 * phrasing's best. Ranks, not scores, because each phrasing's scores are BM25
 * over different words with different idf: one phrasing's 7.2 and another's
 * 3.1 say nothing about each other, while "second best for this phrasing"
 * means the same in every list.
 */
import { PAGE_DEFAULT } from "../limits.ts";
import type { SearchInput } from "../schema/ops.ts";
import type { SearchHit, SearchResult } from "../schema/results.ts";

/**
 * RRF's k, the value its authors found best across TREC runs and the one
 * most systems keep. A large k flattens the head of each list (rank 1 scores
 * 1/61, rank 10 1/70: 13% apart), so agreement between phrasings outweighs
 * one phrasing's order: a turn two phrasings find anywhere in their first 61
 * beats a turn only one of them found, even at its rank 1. That is what
 * several phrasings of one question are for: a turn each of them finds is
 * the likelier answer. A small k (1/1 against 1/2) would let any phrasing's
 * first hit win whatever the others said.
 */
export const RRF_K = 60;

/**
 * Hits asked of each phrasing, at least (the caller's limit when it is more):
 * a hit outside one phrasing's first `limit` can still rise into the fused
 * first `limit` when other phrasings found it, so a small limit looks deeper.
 */
export const PHRASING_DEPTH = 20;

/** One hit as the fusion sees it: the phrasing and rank where it ranked best, and every rank it had. */
interface Fused {
  best: SearchHit;
  bestPhrasing: number;
  bestRank: number;
  ranks: number[];
  foundBy: number[];
}

/**
 * Runs `one` (an engine's search) for the query and each of `queries`, then
 * fuses the lists (fuse). Without `queries` it is `one` itself, hits
 * unchanged. A synchronous engine is called in one go, so its caller can
 * hold one snapshot around every phrasing; an asynchronous one phrasing after
 * another, so a fused search holds one pooled connection at a time, as a
 * single search does.
 */
export function searchPhrasings(input: SearchInput, one: (input: SearchInput) => SearchResult): SearchResult;
export function searchPhrasings(input: SearchInput, one: (input: SearchInput) => Promise<SearchResult>): Promise<SearchResult>;
export function searchPhrasings(input: SearchInput, one: (input: SearchInput) => SearchResult | Promise<SearchResult>): SearchResult | Promise<SearchResult>;
export function searchPhrasings(input: SearchInput, one: (input: SearchInput) => SearchResult | Promise<SearchResult>): SearchResult | Promise<SearchResult> {
  const { queries, ...single } = input;
  if (queries === undefined) return one(single);
  const limit = input.limit ?? PAGE_DEFAULT;
  const depth = Math.max(limit, PHRASING_DEPTH);
  const each = [input.query, ...queries].map((query): SearchInput => ({ ...single, query, limit: depth }));
  const first = one(each[0]!);
  if (first instanceof Promise) {
    return (async () => {
      const lists = [await first];
      for (const phrasing of each.slice(1)) lists.push(await one(phrasing));
      return fuse(lists, limit);
    })();
  }
  return fuse([first, ...each.slice(1).map((phrasing) => one(phrasing) as SearchResult)], limit);
}

/**
 * Fuses the hit lists of several phrasings (list i is phrasing i, best hit
 * first) into the first `limit` by reciprocal rank. A hit found by several
 * phrasings appears once (by LSN), with the snippet, score, matched and
 * follows of the phrasing that ranked it best (the earlier phrasing on a
 * tie), and `found_by` naming every phrasing that found it. Equal fused
 * scores go to the hit with the better best rank, then the earlier phrasing.
 */
export function fuse(lists: readonly SearchResult[], limit: number): SearchResult {
  const byLsn = new Map<number, Fused>();
  for (const [phrasing, list] of lists.entries()) {
    for (const [i, hit] of list.hits.entries()) {
      const rank = i + 1;
      const seen = byLsn.get(hit.lsn);
      if (!seen) {
        byLsn.set(hit.lsn, { best: hit, bestPhrasing: phrasing, bestRank: rank, ranks: [rank], foundBy: [phrasing] });
        continue;
      }
      // A list naming one LSN twice counts it once, at its better place.
      if (seen.foundBy.at(-1) === phrasing) continue;
      seen.ranks.push(rank);
      seen.foundBy.push(phrasing);
      if (rank < seen.bestRank) Object.assign(seen, { best: hit, bestPhrasing: phrasing, bestRank: rank });
    }
  }
  const scored = [...byLsn.values()].map((f) => ({ f, rrf: rrfScore(f.ranks) }));
  scored.sort((x, y) => y.rrf - x.rrf || x.f.bestRank - y.f.bestRank || x.f.bestPhrasing - y.f.bestPhrasing);
  return { hits: scored.slice(0, limit).map(({ f }) => ({ ...f.best, found_by: f.foundBy })) };
}

/** The sum of 1 / (RRF_K + rank), smallest term first: the same ranks give the same float whatever their phrasings' order. */
function rrfScore(ranks: readonly number[]): number {
  let sum = 0;
  for (const rank of [...ranks].sort((a, b) => b - a)) sum += 1 / (RRF_K + rank);
  return sum;
}
