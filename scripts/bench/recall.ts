/**
 * Search quality (DESIGN.md 11): eleven scripted Claude Code sessions captured
 * through the real capture engine among 50,000 distractor turns (10,000 with
 * --quick), 127 labelled queries in three styles, and recall@10, MRR@10 and
 * the share of empty results per style and split, beside a plain
 * OR-of-words BM25 over the same turns.
 *
 * `bun scripts/bench/recall.ts --tune [--distractors N]` prints each missed
 * TUNE query with its top hits, for studying failures. Held-out queries are
 * only ever summarized as numbers.
 */
import { parseArgs } from "node:util";
import type { Figure, Section } from "./_lib.ts";
import { remove, tmp } from "./_lib.ts";
import type { Query } from "./recall/_types.ts";
import { orBaseline } from "./recall/baseline.ts";
import { type Built, buildMemory } from "./recall/build.ts";
import { type Outcome, SPLIT_GROUPS, STYLE_GROUPS, type Summary, rankOf, select, summarize } from "./recall/metrics.ts";
import { QUERIES } from "./recall/queries.ts";
import { SESSIONS } from "./recall/transcripts.ts";

/** One query's hits: zerodb's (with snippets) and the baseline's. */
interface Run {
  query: Query;
  zerodb: Outcome;
  baseline: Outcome;
  snippets: string[];
}

/** Runs every query through zerodb's search and through the baseline. */
async function runQueries(built: Built): Promise<Run[]> {
  const baseline = orBaseline(built.content);
  try {
    const runs: Run[] = [];
    for (const query of QUERIES) {
      // Only `query` and `limit` in, only `lsn` and `snippet` out: the API is being reworked around them.
      const r = await built.memory.search({ query: query.query, limit: 10 });
      const rank = rankOf(
        r.hits.map((h) => built.content.get(h.lsn)),
        query.answer,
      );
      const b = baseline.search(query.query);
      runs.push({
        query,
        zerodb: { query, rank, empty: r.hits.length === 0 },
        baseline: {
          query,
          rank: rankOf(
            b.map((lsn) => built.content.get(lsn)),
            query.answer,
          ),
          empty: b.length === 0,
        },
        snippets: r.hits.map((h) => h.snippet),
      });
    }
    return runs;
  } finally {
    baseline.close();
  }
}

/** Labels whose answer is not in exactly one stored turn (capture rendered it otherwise): they can only miss. */
function strayLabels(built: Built): Query[] {
  const contents = [...built.content.values()];
  return QUERIES.filter((q) => contents.filter((c) => c.includes(q.answer)).length !== 1);
}

/** zerodb's and the baseline's summary of the runs of one style and split. */
function summaries(runs: Run[], style: Parameters<typeof select>[1], split: Parameters<typeof select>[2]): { z: Summary; b: Summary } {
  return {
    z: summarize(
      select(
        runs.map((r) => r.zerodb),
        style,
        split,
      ),
    ),
    b: summarize(
      select(
        runs.map((r) => r.baseline),
        style,
        split,
      ),
    ),
  };
}

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "-");
const line = (s: Summary) => `recall@10 ${f2(s.recall)}  MRR ${f2(s.mrr)}  empty ${f2(s.empty)}`;

const section: Section = {
  name: "recall",
  async run(ctx) {
    const n = ctx.quick ? 10_000 : 50_000;
    const t0 = performance.now();
    const built = await buildMemory(ctx.tmp, n);
    try {
      ctx.log(
        `memory: ${built.captured} captured turns of ${SESSIONS.length} sessions among ${n.toLocaleString("en-US")} distractors (${built.content.size.toLocaleString("en-US")} turns, built in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
      const stray = strayLabels(built);
      if (stray.length > 0) ctx.log(`${stray.length} labels are not held by exactly one stored turn (they count as misses)`);
      const runs = await runQueries(built);
      const out: Figure[] = [];
      for (const sg of STYLE_GROUPS) {
        const parts: string[] = [];
        for (const pg of SPLIT_GROUPS) {
          const { z, b } = summaries(runs, sg.style, pg.split);
          const at = `${sg.name} ${pg.name}`;
          const note = (x: number) => `n=${z.n}; OR-of-words BM25 ${f2(x)}`;
          out.push({ name: `recall@10 ${at}`, value: z.recall, unit: "", runs: z.n, note: note(b.recall) });
          out.push({ name: `MRR@10 ${at}`, value: z.mrr, unit: "", runs: z.n, note: note(b.mrr) });
          out.push({ name: `empty results ${at}`, value: z.empty, unit: "ratio", runs: z.n, note: note(b.empty) });
          if (pg.name !== "tune") parts.push(`${pg.name}: ${line(z)} | OR-BM25 ${line(b)}`);
        }
        ctx.log(`${sg.name.padEnd(11)} ${parts.join("  ||  ")}`);
      }
      return out;
    } finally {
      built.store.close();
    }
  },
};

export default section;

/** The study view: tune misses with their top hits; held-out as numbers only. */
async function tune(n: number): Promise<void> {
  const dir = tmp("zerodb-recall-tune-");
  try {
    const built = await buildMemory(dir, n);
    try {
      const runs = await runQueries(built);
      for (const q of strayLabels(built).filter((q) => q.split === "tune")) console.log(`label not in exactly one stored turn: ${JSON.stringify(q.answer)}`);
      for (const r of runs.filter((r) => r.query.split === "tune" && r.zerodb.rank === 0)) {
        console.log(
          `\nMISS [${r.query.style}] ${r.query.query}\n  answer: ${r.query.answer}${r.baseline.rank > 0 ? `  (OR-BM25 rank ${r.baseline.rank})` : ""}`,
        );
        if (r.snippets.length === 0) console.log("  (no hits)");
        for (const s of r.snippets.slice(0, 3)) console.log(`  - ${s.replace(/\s+/g, " ").slice(0, 200)}`);
      }
      console.log(`\n${built.content.size.toLocaleString("en-US")} turns (${n.toLocaleString("en-US")} distractors)`);
      for (const sg of STYLE_GROUPS) {
        for (const pg of SPLIT_GROUPS.filter((p) => p.split !== undefined)) {
          const { z, b } = summaries(runs, sg.style, pg.split);
          console.log(`${sg.name.padEnd(11)} ${pg.name.padEnd(7)} n=${String(z.n).padStart(3)}  ${line(z)}  | OR-BM25 ${line(b)}`);
        }
      }
    } finally {
      built.store.close();
    }
  } finally {
    remove(dir);
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { tune: { type: "boolean" }, distractors: { type: "string" } } });
  if (!values.tune) {
    console.error("usage: bun scripts/bench/recall.ts --tune [--distractors N]   (the section itself runs in `bun run bench`)");
    process.exit(2);
  }
  await tune(Number(values.distractors ?? 50_000));
}
