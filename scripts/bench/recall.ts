/**
 * Search quality (DESIGN.md 11), real data first: the labelled set written by
 * reading real transcripts of public repositories (scripts/bench/recall/real/),
 * then the generated set (eleven scripted sessions, scripts/bench/recall/),
 * each alone (a few hundred turns) and among 50,000 distractors that are real
 * turns of other sessions (10,000 with --quick). Per set, scale, style and
 * split: recall@10, MRR@10 and the share of empty results, each beside a
 * plain stemmed BM25 OR-of-words over the same turns in the same run (the
 * floor); every figure below the floor is flagged and counted.
 *
 * `bun scripts/bench/recall.ts --tune [--set real|generated] [--distractors N]`
 * prints each missed TUNE query with its top hits, for studying failures;
 * `--query TEXT` shows both rankings' top five for the tune queries holding TEXT.
 * Held-out queries are only ever summarized as numbers.
 */
import { parseArgs } from "node:util";
import type { Figure, Section } from "./_lib.ts";
import { remove, tmp } from "./_lib.ts";
import type { Memory } from "../../src/store/types.ts";
import type { SqliteStore } from "../../src/store/sqlite/store.ts";
import type { Split, Style } from "./recall/_types.ts";
import { orBaseline } from "./recall/baseline.ts";
import { buildMemory } from "./recall/build.ts";
import { type Outcome, SPLIT_GROUPS, STYLE_GROUPS, type Summary, select, summarize } from "./recall/metrics.ts";
import { QUERIES } from "./recall/queries.ts";
import { buildReal, mirrorRoot } from "./recall/real/build.ts";

/** A query as both sets have it. */
interface Asked {
  style: Style;
  split: Split;
  query: string;
}

/** A built memory with its labels, whichever set. */
interface Labelled {
  store: SqliteStore;
  memory: Memory;
  content: Map<number, string>;
  queries: Asked[];
  /** Whether the turn at `lsn` answers query `i`. */
  answers(i: number, lsn: number): boolean;
  /** Queries whose answer no stored turn holds (they can only miss). */
  stray: number;
}

/** One query's outcome for zerodb and for the floor, with zerodb's snippets. */
interface Run {
  query: Asked;
  zerodb: Outcome;
  baseline: Outcome;
  snippets: string[];
}

/** Every query through zerodb's search and the floor. */
async function runQueries(l: Labelled): Promise<Run[]> {
  const baseline = orBaseline(l.content);
  try {
    const runs: Run[] = [];
    for (const [i, query] of l.queries.entries()) {
      const r = await l.memory.search({ query: query.query, limit: 10 });
      const rank = (lsns: number[]) => lsns.slice(0, 10).findIndex((lsn) => l.answers(i, lsn)) + 1;
      const b = baseline.search(query.query);
      const q = { ...query, answer: "" };
      runs.push({
        query,
        zerodb: { query: q, rank: rank(r.hits.map((h) => h.lsn)), empty: r.hits.length === 0 },
        baseline: { query: q, rank: rank(b), empty: b.length === 0 },
        snippets: r.hits.map((h) => h.snippet),
      });
    }
    return runs;
  } finally {
    baseline.close();
  }
}

/** The real set, built among `n` distractors. */
async function realSet(dir: string, n: number, noise: Noise): Promise<Labelled> {
  const built = await buildReal(dir, { mirror: mirrorRoot(), distractors: n, noise });
  return {
    store: built.store,
    memory: built.memory,
    content: built.content,
    queries: built.queries,
    answers: (i, lsn) => built.answers[i]!.has(lsn),
    stray: built.answers.filter((a) => a.size === 0).length,
  };
}

/** The generated set, built among `n` distractors. */
async function generatedSet(dir: string, n: number, noise: Noise): Promise<Labelled> {
  const built = await buildMemory(
    dir,
    noise(n).map(({ role, content }) => ({ role, content })),
  );
  const contents = [...built.content.values()];
  return {
    store: built.store,
    memory: built.memory,
    content: built.content,
    queries: QUERIES,
    answers: (i, lsn) => built.content.get(lsn)?.includes(QUERIES[i]!.answer) === true,
    stray: QUERIES.filter((q) => contents.filter((c) => c.includes(q.answer)).length !== 1).length,
  };
}

/** Real distractor turns (scripts/bench/recall/real/distractor-turns.ts). */
type Noise = (n: number) => { role: "user" | "assistant" | "tool"; content: string; session: string }[];

async function realNoise(): Promise<Noise> {
  const { distractorTurns } = (await import("./recall/real/distractor-turns.ts")) as {
    distractorTurns: (mirror: string, n: number) => ReturnType<Noise>;
  };
  const mirror = mirrorRoot();
  return (n) => (n === 0 ? [] : distractorTurns(mirror, n));
}

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "-");
const line = (s: Summary) => `recall@10 ${f2(s.recall)}  MRR ${f2(s.mrr)}  empty ${f2(s.empty)}`;

function summaries(runs: Run[], style?: Style, split?: Split): { z: Summary; b: Summary } {
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

/** The sets and scales measured, real first. */
const SETS = [
  { name: "real", build: realSet },
  { name: "generated", build: generatedSet },
] as const;

const section: Section = {
  name: "recall",
  async run(ctx) {
    const big = ctx.quick ? 10_000 : 50_000;
    const noise = await realNoise();
    const out: Figure[] = [];
    let below = 0;
    for (const set of SETS) {
      for (const n of [0, big]) {
        const t0 = performance.now();
        const dir = tmp(`zerodb-recall-${set.name}-`);
        try {
          const l = await set.build(dir, n, noise);
          try {
            const scale = n === 0 ? "alone" : `@${n.toLocaleString("en-US")}`;
            ctx.log(
              `${set.name} ${scale}: ${l.queries.length} queries over ${l.content.size.toLocaleString("en-US")} turns (built in ${((performance.now() - t0) / 1000).toFixed(1)} s)${l.stray > 0 ? `; ${l.stray} labels match no stored turn (counted as misses)` : ""}`,
            );
            const runs = await runQueries(l);
            for (const sg of STYLE_GROUPS) {
              const parts: string[] = [];
              for (const pg of SPLIT_GROUPS) {
                const { z, b } = summaries(runs, sg.style, pg.split);
                const at = `${set.name} ${scale} ${sg.name} ${pg.name}`;
                const flag = (zv: number, bv: number) => (zv < bv ? " BELOW BM25-OR" : "");
                // The floor is judged on every split: tune, held out and both.
                if (z.recall < b.recall) below++;
                if (z.mrr < b.mrr) below++;
                const note = (x: number, y: number) => `n=${z.n}; stemmed BM25-OR ${f2(x)}${flag(y, x)}`;
                out.push({
                  name: `recall@10 ${at}`,
                  value: z.recall,
                  unit: "",
                  runs: z.n,
                  note: note(b.recall, z.recall),
                  ratio: { of: "BM25-OR", value: z.recall / b.recall },
                });
                out.push({ name: `MRR@10 ${at}`, value: z.mrr, unit: "", runs: z.n, note: note(b.mrr, z.mrr) });
                out.push({ name: `empty results ${at}`, value: z.empty, unit: "ratio", runs: z.n, note: `n=${z.n}; stemmed BM25-OR ${f2(b.empty)}` });
                if (pg.name !== "tune") parts.push(`${pg.name}: ${line(z)}${flag(z.recall, b.recall)}${flag(z.mrr, b.mrr)} | BM25-OR ${line(b)}`);
              }
              ctx.log(`  ${sg.name.padEnd(11)} ${parts.join("  ||  ")}`);
            }
          } finally {
            l.store.close();
          }
        } finally {
          remove(dir);
        }
      }
    }
    out.push({ name: "figures below stemmed BM25-OR", value: below, unit: "", note: "recall@10 and MRR@10 of every set, scale, style and split" });
    return out;
  },
};

export default section;

/** The study view: tune misses with their top hits; held-out as numbers only. */
async function tune(setName: string, n: number, about?: string): Promise<void> {
  const set = SETS.find((s) => s.name === setName);
  if (!set) throw new Error(`no set ${setName}`);
  const dir = tmp("zerodb-recall-tune-");
  try {
    const l = await set.build(dir, n, await realNoise());
    try {
      const runs = await runQueries(l);
      if (about !== undefined) {
        await explain(l, about);
        return;
      }
      for (const r of runs.filter((r) => r.query.split === "tune" && r.zerodb.rank === 0)) {
        console.log(`\nMISS [${r.query.style}] ${r.query.query}${r.baseline.rank > 0 ? `  (BM25-OR rank ${r.baseline.rank})` : ""}`);
        if (r.snippets.length === 0) console.log("  (no hits)");
        for (const s of r.snippets.slice(0, 3)) console.log(`  - ${s.replace(/\s+/g, " ").slice(0, 200)}`);
      }
      const worse = runs.filter((r) => r.query.split === "tune" && r.zerodb.rank > 0 && r.baseline.rank > 0 && r.baseline.rank < r.zerodb.rank);
      console.log(`\ntune queries ranked lower than BM25-OR ranks them: ${worse.length}`);
      for (const r of worse) console.log(`  [${r.query.style}] ${r.query.query}: zerodb ${r.zerodb.rank}, BM25-OR ${r.baseline.rank}`);
      console.log(`\n${l.content.size.toLocaleString("en-US")} turns (${n.toLocaleString("en-US")} distractors)`);
      for (const sg of STYLE_GROUPS) {
        for (const pg of SPLIT_GROUPS.filter((p) => p.split !== undefined)) {
          const { z, b } = summaries(runs, sg.style, pg.split);
          console.log(`${sg.name.padEnd(11)} ${pg.name.padEnd(7)} n=${String(z.n).padStart(3)}  ${line(z)}  | BM25-OR ${line(b)}`);
        }
      }
    } finally {
      l.store.close();
    }
  } finally {
    remove(dir);
  }
}

/** Both rankings' top five for each tune query holding `about`, answers marked. */
async function explain(l: Labelled, about: string): Promise<void> {
  const baseline = orBaseline(l.content);
  try {
    for (const [i, q] of l.queries.entries()) {
      if (q.split !== "tune" || !q.query.includes(about)) continue;
      console.log(`\n[${q.style}] ${q.query}`);
      const show = (who: string, lsns: number[]) => {
        for (const [k, lsn] of lsns.slice(0, 5).entries()) {
          const text = l.content.get(lsn) ?? "";
          console.log(`  ${who} ${k + 1}${l.answers(i, lsn) ? " *" : "  "} #${lsn} ${text.length}B ${text.replace(/\s+/g, " ").slice(0, 160)}`);
        }
      };
      show(
        "zerodb",
        (await l.memory.search({ query: q.query, limit: 10 })).hits.map((h) => h.lsn),
      );
      show("BM25  ", baseline.search(q.query));
    }
  } finally {
    baseline.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { tune: { type: "boolean" }, set: { type: "string" }, distractors: { type: "string" }, query: { type: "string" } },
  });
  if (!values.tune) {
    console.error("usage: bun scripts/bench/recall.ts --tune [--set real|generated] [--distractors N]   (the section itself runs in `bun run bench`)");
    process.exit(2);
  }
  await tune(values.set ?? "real", Number(values.distractors ?? 50_000), values.query);
}
