/**
 * Scoring a ranked list against a label, and summing per style and split:
 * recall@10 (the answer's turn among the hits), MRR@10 (1 / its rank), and
 * the share of queries that returned nothing at all.
 */
import type { Query, Split, Style } from "./_types.ts";

/** How one query fared. */
export interface Outcome {
  query: Query;
  /** 1-based rank of the first hit whose turn holds the answer; 0 when none of the first 10 does. */
  rank: number;
  empty: boolean;
}

/** The figures of a group of queries. */
export interface Summary {
  n: number;
  recall: number;
  mrr: number;
  empty: number;
}

/** The rank of the first relevant content among hits (0 if none in the first `k`). */
export function rankOf(contents: (string | undefined)[], answer: string, k = 10): number {
  const i = contents.slice(0, k).findIndex((c) => c?.includes(answer));
  return i + 1;
}

/** Recall, MRR and empty share of a set of outcomes. */
export function summarize(outcomes: Outcome[]): Summary {
  const n = outcomes.length;
  if (n === 0) return { n, recall: Number.NaN, mrr: Number.NaN, empty: Number.NaN };
  return {
    n,
    recall: outcomes.filter((o) => o.rank > 0).length / n,
    mrr: outcomes.reduce((s, o) => s + (o.rank > 0 ? 1 / o.rank : 0), 0) / n,
    empty: outcomes.filter((o) => o.empty).length / n,
  };
}

/** Report groups: each style, and every style together; each split, and both. */
export const STYLE_GROUPS: { name: string; style?: Style }[] = [
  { name: "keywords", style: "keyword" },
  { name: "questions", style: "question" },
  { name: "paraphrases", style: "paraphrase" },
  { name: "all styles" },
];
export const SPLIT_GROUPS: { name: string; split?: Split }[] = [{ name: "tune", split: "tune" }, { name: "heldout", split: "heldout" }, { name: "all" }];

/** The outcomes of one style group and split group. */
export function select(outcomes: Outcome[], style?: Style, split?: Split): Outcome[] {
  return outcomes.filter((o) => (style === undefined || o.query.style === style) && (split === undefined || o.query.split === split));
}
