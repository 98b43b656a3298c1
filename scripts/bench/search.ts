/**
 * Search cost (DESIGN.md 11, issue "Search that finds what was said"), in
 * process: a 6-word natural question at 100k and 1M realistic turns (each
 * beside FTS5's own BM25 of the same words over the same index), a search
 * matching one 3 MiB turn full of its words, the migration's index build
 * rate, and the bytes of index per byte of text. Quality is the recall section's.
 */
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { rebuildIndex } from "../../src/store/sqlite/search/word-index.ts";
import { isStopword } from "../../src/search/stopwords.ts";
import { type Figure, type Section, percentile, scratch } from "./_lib.ts";
import { distractor } from "./recall/distractors.ts";

const QUESTIONS = 200;
const BIG_RUNS = 20;

const fmtN = (n: number) => n.toLocaleString("en-US");

/** A 6-word question about turn k: "why did" and four of its words (what a person half-remembers of it). */
export function questionFor(k: number): string {
  const words = distractor(k).content.match(/[A-Za-z]{4,}/g) ?? [];
  const content = [...new Set(words.map((w) => w.toLowerCase()))].filter((w) => !isStopword(w));
  const picked: string[] = [];
  for (let i = 0; picked.length < 4 && i < content.length; i++) picked.push(content[(k + i * 3) % content.length]!);
  while (picked.length < 4) picked.push(["deploy", "timeout", "retry", "cache"][picked.length]!);
  return `why did ${picked.join(" ")}?`;
}

/**
 * The reference for a question (issue 32): the words zerodb would search for
 * (stopwords dropped), ORed in FTS5's own BM25 over the store's word index.
 * The bench's store has one tenant, so no tenant scope is needed.
 */
export function bareQuery(question: string): string {
  const words = (question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !isStopword(w));
  return `body : (${words.map((w) => `"${w}"`).join(" OR ")})`;
}

const section: Section = {
  name: "search",
  async run(ctx) {
    const out: Figure[] = [];
    const sizes = ctx.quick ? [100_000] : [100_000, 1_000_000];
    const store = openSqliteStore(scratch(ctx.tmp, "search"));
    const bare = store.db.query("SELECT rowid FROM words WHERE words MATCH ? ORDER BY rank LIMIT 10");
    try {
      const m = store.memory("bench");
      const lsnOf: number[] = [];
      let stored = 0;
      for (const size of sizes) {
        const t0 = performance.now();
        while (stored < size) {
          const count = Math.min(256, size - stored);
          const r = await m.append({
            session: `bench/s${Math.floor(stored / 2000)}`,
            entries: Array.from({ length: count }, (_, i) => distractor(stored + i)),
          });
          for (const e of r.entries) lsnOf.push(e.lsn);
          stored += count;
        }
        ctx.log(`grew to ${fmtN(size)} realistic turns in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        const at = `@${fmtN(size)}`;
        const lat: number[] = [];
        const bareLat: number[] = [];
        let found = 0;
        for (let q = 0; q < QUESTIONS; q++) {
          const k = (q * 7919) % size;
          const query = questionFor(k);
          // Paired: FTS5's own BM25 over the same index and the same words, then zerodb's search.
          const t0 = performance.now();
          bare.all(bareQuery(query));
          bareLat.push(performance.now() - t0);
          const t = performance.now();
          const r = await m.search({ query, limit: 10 });
          lat.push(performance.now() - t);
          if (r.hits.some((h) => h.lsn === lsnOf[k])) found++;
        }
        const spread = { min: Math.min(...lat), max: Math.max(...lat), runs: QUESTIONS };
        out.push({
          name: `6-word question ${at} p50`,
          value: percentile(lat, 50),
          unit: "ms",
          ...spread,
          note: `its turn in the top 10: ${(found / QUESTIONS).toFixed(2)}`,
        });
        const bareP95 = percentile(bareLat, 95);
        out.push({
          name: `6-word question ${at} p95`,
          value: percentile(lat, 95),
          unit: "ms",
          ...spread,
          ratio: { of: "bare FTS5 BM25, same words, same index", value: percentile(lat, 95) / bareP95 },
        });
        out.push({
          name: `bare FTS5 BM25 of the same words ${at} p95`,
          value: bareP95,
          unit: "ms",
          min: Math.min(...bareLat),
          max: Math.max(...bareLat),
          runs: QUESTIONS,
          note: "ORDER BY rank LIMIT 10 over the store's own word index",
        });

        if (size === sizes[0]) {
          // One 3 MiB turn holding the query's words throughout (a captured log output).
          const big = "alpha bravo ".repeat(Math.floor((3 * 2 ** 20) / 12));
          await m.append({ session: "bench/big", entries: [{ role: "tool", content: big }] });
          const bigLat: number[] = [];
          for (let i = 0; i < BIG_RUNS; i++) {
            const t = performance.now();
            await m.search({ query: "alpha bravo", limit: 10 });
            bigLat.push(performance.now() - t);
          }
          out.push({
            name: "search matching one 3 MiB turn p95",
            value: percentile(bigLat, 95),
            unit: "ms",
            min: Math.min(...bigLat),
            max: Math.max(...bigLat),
            runs: BIG_RUNS,
          });

          // The migration's work: every row's index text rebuilt, in one transaction (rolled back here).
          const db = store.db;
          let rows = 0;
          let ms = 0;
          try {
            db.transaction(() => {
              db.run("INSERT INTO words (words) VALUES ('delete-all')");
              const t = performance.now();
              rows = rebuildIndex(db);
              ms = performance.now() - t;
              throw new Error("rollback");
            }).immediate();
          } catch (err) {
            if ((err as Error).message !== "rollback") throw err;
          }
          out.push({
            name: `index build (migration) ${at}`,
            value: (rows / ms) * 1000,
            unit: "turns/s",
            note: `${fmtN(rows)} rows in ${(ms / 1000).toFixed(1)} s`,
          });
          const index = (db.query("SELECT coalesce(sum(pgsize), 0) AS n FROM dbstat WHERE name LIKE 'words%'").get() as { n: number }).n;
          const text = (db.query("SELECT coalesce(sum(bytes), 0) AS n FROM tape WHERE text IS NOT NULL").get() as { n: number }).n;
          out.push({
            name: `index bytes per text byte ${at}`,
            value: index / text,
            unit: "ratio",
            note: `${fmtN(Math.round(index / 2 ** 20))} MiB of index for ${fmtN(Math.round(text / 2 ** 20))} MiB of text`,
          });
        }
      }
    } finally {
      store.close();
    }
    return out;
  },
};

export default section;
