/**
 * Drives one MCP memory server through the peers workload: memories written
 * one per tool call up to each size, then planted-word and common-word
 * searches at that size, then its peak RSS and bytes on disk. Every call is
 * timed on its own, so a figure's spread is the spread of real calls.
 */
import type { Contender } from "./_contenders.ts";
import { connect } from "./_contenders.ts";
import { diskBytes, peakRssMiB } from "./_lib.ts";
import { WORDS, entryText, plantedTarget, plantedWord } from "./_workload.ts";

/** One entry in every this many carries a planted word (200 planted among 10,000). */
export const PLANT_EVERY = 50;
/** Searches for a planted word at each size. */
export const PLANTED_QUERIES = 200;
/** Searches for a common word at each size. */
export const COMMON_QUERIES = 20;
/** The write rate "at N" is taken over the last tenth of the writes, in this many runs of consecutive calls. */
export const WRITE_RUNS = 10;

/** One size to reach; `seedTo` lets a contender with `seed` put the first memories in directly. */
export interface Step {
  size: number;
  seedTo?: number;
}

/** What was measured at one size. */
export interface AtSize {
  size: number;
  /** Memories put in by `seed` rather than by tool calls, in total so far. */
  seeded: number;
  /** The count of memories held when the measured runs of writes began. */
  windowStart: number;
  /** Calls per second of each run of consecutive writes in the last tenth before `size`. */
  runs: number[];
  /** The probe's value just before each of those runs (when a probe was given). */
  probes: number[];
  /** Calls per second over every write call made up to `size`. */
  overall: number;
  plantedMs: number[];
  /** Share of planted-word searches whose one right answer was among the first 10 hits. */
  recall: number;
  commonMs: number[];
  /** Hits the first common-word search returned. */
  commonHits: number;
}

/** The whole run of one contender. */
export interface DriveResult {
  sizes: AtSize[];
  /** VmHWM of the server process after the last size, read just before closing. */
  peakRssMiB: number | undefined;
  /** Its data directory's size on disk after closing. */
  diskBytes: number;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await fn();
  return [r, performance.now() - t0];
}

/**
 * Grows the contender through each step and searches at each. `probe`, when
 * given, runs just before each measured run of writes (the raw fsync rate, so
 * the two are compared under the same background load).
 */
export async function drive(c: Contender, steps: Step[], opts: { log: (line: string) => void; probe?: () => number }): Promise<DriveResult> {
  const conn = await connect(c);
  const ids: string[] = [];
  const callMs: number[] = [];
  let seeded = 0;
  const out: AtSize[] = [];
  let peak: number | undefined;
  try {
    for (const { size, seedTo } of steps) {
      const t0 = performance.now();
      if (seedTo !== undefined && c.seed && ids.length < seedTo) {
        seeded += seedTo - ids.length;
        ids.push(...(await c.seed(ids.length, seedTo, (i) => entryText(i, PLANT_EVERY))));
      }
      const windowStart = Math.max(ids.length, size - size / 10);
      const runLen = Math.max(1, Math.floor((size - windowStart) / WRITE_RUNS));
      const runs: number[] = [];
      const probes: number[] = [];
      let runMs = 0;
      while (ids.length < size) {
        const i = ids.length;
        if (opts.probe && i >= windowStart && (i - windowStart) % runLen === 0 && probes.length < WRITE_RUNS) probes.push(opts.probe());
        const [id, ms] = await timed(() => c.remember(conn.client, i, entryText(i, PLANT_EVERY)));
        ids.push(id);
        callMs.push(ms);
        if (i >= windowStart && runs.length < WRITE_RUNS) {
          runMs += ms;
          if ((i + 1 - windowStart) % runLen === 0) {
            runs.push((runLen * 1000) / runMs);
            runMs = 0;
          }
        }
      }
      const how = seeded > 0 ? ` (${seeded.toLocaleString("en-US")} seeded in its file, the rest over MCP)` : "";
      opts.log(`${c.label}: ${size.toLocaleString("en-US")} memories${how} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const plantedMs: number[] = [];
      let found = 0;
      for (let q = 0; q < PLANTED_QUERIES; q++) {
        const k = plantedTarget(q, size, PLANT_EVERY);
        const [hits, ms] = await timed(() => c.search(conn.client, plantedWord(k)));
        plantedMs.push(ms);
        if (hits.slice(0, 10).includes(ids[k]!)) found++;
      }
      const commonMs: number[] = [];
      let commonHits = 0;
      for (let q = 0; q < COMMON_QUERIES; q++) {
        const [hits, ms] = await timed(() => c.search(conn.client, WORDS[q % WORDS.length]!));
        commonMs.push(ms);
        if (q === 0) commonHits = hits.length;
      }
      const overall = (callMs.length * 1000) / callMs.reduce((a, b) => a + b, 0);
      out.push({ size, seeded, windowStart, runs, probes, overall, plantedMs, recall: found / PLANTED_QUERIES, commonMs, commonHits });
    }
    peak = peakRssMiB(conn.pid);
  } finally {
    await conn.close();
  }
  return { sizes: out, peakRssMiB: peak, diskBytes: diskBytes(c.dataDir) };
}
