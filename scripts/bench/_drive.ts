/**
 * Drives MCP memory servers through the peers workload in lockstep: each
 * grows to a size, then their measured runs of writes alternate, so a burst
 * of background load on this shared machine lands on both alike; then each
 * answers its planted-word and common-word searches. Every call is timed on
 * its own; a figure's spread is the spread of real runs.
 */
import type { Contender, Connection } from "./_contenders.ts";
import { connect } from "./_contenders.ts";
import { diskBytes, peakRssMiB } from "./_lib.ts";
import { WORDS, entryText, plantedTarget, plantedWord } from "./_workload.ts";

/** One entry in every this many carries a planted word (200 planted among 10,000). */
export const PLANT_EVERY = 50;
/** Searches for a planted word at each size. */
export const PLANTED_QUERIES = 200;
/** Searches for a common word at each size. */
export const COMMON_QUERIES = 20;
/** Planted-word searches made after a pause, at the last size. */
export const IDLE_QUERIES = 50;
/** The pause before each of them, in milliseconds. */
export const IDLE_MS = 50;
/** The write rate "at N" is taken over the last tenth of the writes, in this many runs of consecutive calls. */
export const WRITE_RUNS = 10;

/** One server in the race and how it is fed. */
export interface Entrant {
  contender: Contender;
  /** Per size, how many memories `seed` may put in directly before the tool calls (quick run). */
  seedTo?: Map<number, number>;
  /** Runs just before each measured run of writes (the raw fsync rate, compared under the same load). */
  probe?: () => number;
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
  /** Planted-word searches each made after a pause (at the last size only, else empty). */
  idleMs: number[];
}

/** The whole run of one server. */
export interface DriveResult {
  sizes: AtSize[];
  /** VmHWM of the server process after the last size, read just before closing. */
  peakRssMiB: number | undefined;
  /** Its data directory's size on disk after closing. */
  diskBytes: number;
}

/** One server's state during the drive. */
interface Lane {
  entrant: Entrant;
  conn: Connection;
  ids: string[];
  callMs: number[];
  seeded: number;
  sizes: AtSize[];
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await fn();
  return [r, performance.now() - t0];
}

/** Writes memories until the lane holds `until`; returns the milliseconds of those calls. */
async function writeUntil(lane: Lane, until: number): Promise<number> {
  let ms = 0;
  while (lane.ids.length < until) {
    const i = lane.ids.length;
    const text = entryText(i, PLANT_EVERY);
    const [id, t] = await timed(() => lane.entrant.contender.remember(lane.conn.client, i, text));
    lane.ids.push(id);
    lane.callMs.push(t);
    ms += t;
  }
  return ms;
}

/** Grows every entrant through each size and measures each at each size; `log` reports progress. */
export async function drive(entrants: Entrant[], sizes: number[], log: (line: string) => void): Promise<DriveResult[]> {
  const lanes: Lane[] = [];
  try {
    for (const entrant of entrants) lanes.push({ entrant, conn: await connect(entrant.contender), ids: [], callMs: [], seeded: 0, sizes: [] });
    for (const size of sizes) {
      const windows = [];
      for (const lane of lanes) {
        const { contender, seedTo } = lane.entrant;
        const to = seedTo?.get(size);
        if (to !== undefined && contender.seed && lane.ids.length < to) {
          lane.seeded += to - lane.ids.length;
          lane.ids.push(...(await contender.seed(lane.ids.length, to, (i) => entryText(i, PLANT_EVERY))));
        }
        const t0 = performance.now();
        const start = Math.max(lane.ids.length, size - size / 10);
        await writeUntil(lane, start);
        log(
          `${contender.label}: ${start.toLocaleString("en-US")} memories (${lane.seeded.toLocaleString("en-US")} seeded) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
        windows.push({ start, runLen: Math.max(1, Math.floor((size - start) / WRITE_RUNS)), runs: [] as number[], probes: [] as number[] });
      }
      for (let run = 0; run < WRITE_RUNS; run++) {
        for (const [k, lane] of lanes.entries()) {
          const w = windows[k]!;
          if (lane.entrant.probe) w.probes.push(lane.entrant.probe());
          const target = run === WRITE_RUNS - 1 ? size : w.start + (run + 1) * w.runLen;
          const calls = target - lane.ids.length;
          w.runs.push((calls * 1000) / (await writeUntil(lane, target)));
        }
      }
      // Searches run in one block per server: interleaving them call by call would let one
      // server's garbage collection after a big answer run on the core the other needs.
      const planted = lanes.map(() => ({ ms: [] as number[], found: 0 }));
      const common = lanes.map(() => ({ ms: [] as number[], hits: 0 }));
      for (const [j, lane] of lanes.entries()) {
        for (let q = 0; q < PLANTED_QUERIES; q++) {
          const k = plantedTarget(q, size, PLANT_EVERY);
          const [hits, ms] = await timed(() => lane.entrant.contender.search(lane.conn.client, plantedWord(k)));
          planted[j]!.ms.push(ms);
          if (hits.slice(0, 10).includes(lane.ids[k]!)) planted[j]!.found++;
        }
        for (let q = 0; q < COMMON_QUERIES; q++) {
          const [hits, ms] = await timed(() => lane.entrant.contender.search(lane.conn.client, WORDS[q % WORDS.length]!));
          common[j]!.ms.push(ms);
          if (q === 0) common[j]!.hits = hits.length;
        }
      }
      // An agent searches after seconds of thinking, not back to back: the same searches, each after a pause.
      const idle = lanes.map(() => [] as number[]);
      if (size === sizes.at(-1)) {
        for (let q = 0; q < IDLE_QUERIES; q++) {
          for (const [j, lane] of lanes.entries()) {
            await Bun.sleep(IDLE_MS);
            const [, ms] = await timed(() => lane.entrant.contender.search(lane.conn.client, plantedWord(plantedTarget(q, size, PLANT_EVERY))));
            idle[j]!.push(ms);
          }
        }
      }
      for (const [j, lane] of lanes.entries()) {
        const w = windows[j]!;
        const overall = (lane.callMs.length * 1000) / lane.callMs.reduce((a, b) => a + b, 0);
        lane.sizes.push({
          size,
          seeded: lane.seeded,
          windowStart: w.start,
          runs: w.runs,
          probes: w.probes,
          overall,
          plantedMs: planted[j]!.ms,
          recall: planted[j]!.found / PLANTED_QUERIES,
          commonMs: common[j]!.ms,
          commonHits: common[j]!.hits,
          idleMs: idle[j]!,
        });
      }
    }
    const peaks = lanes.map((lane) => peakRssMiB(lane.conn.pid));
    for (const lane of lanes) await lane.conn.close();
    return lanes.map((lane, j) => ({ sizes: lane.sizes, peakRssMiB: peaks[j], diskBytes: diskBytes(lane.entrant.contender.dataDir) }));
  } finally {
    // On failure, close what is still open; close is idempotent in the SDK's transport.
    await Promise.all(lanes.map((lane) => lane.conn.close().catch(() => undefined)));
  }
}
