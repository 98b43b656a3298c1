/**
 * History (DESIGN.md section 17, issue 33), in process at 100k realistic
 * turns: search and read with `as_of` beside the same calls without it, as
 * an LSN halfway through the tape and as a time, plus sessions as of a point
 * (computed from the tape, not the sessions table) and a diff of a span.
 */
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { type Figure, type Section, percentile, scratch } from "./_lib.ts";
import { distractor } from "./recall/distractors.ts";
import { questionFor } from "./search.ts";

const TURNS = 100_000;
const RUNS = 100;

/** Latency figures (p50 with the p95 in the note) of `fn` over RUNS calls. */
async function timed(name: string, fn: (i: number) => Promise<unknown>): Promise<Figure> {
  const lat: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn(i);
    lat.push(performance.now() - t);
  }
  return {
    name,
    value: percentile(lat, 50),
    unit: "ms",
    min: Math.min(...lat),
    max: Math.max(...lat),
    runs: RUNS,
    note: `p95 ${percentile(lat, 95).toFixed(2)} ms`,
  };
}

const section: Section = {
  name: "history",
  async run(ctx) {
    const store = openSqliteStore(scratch(ctx.tmp, "history"));
    try {
      const m = store.memory("bench");
      let stored = 0;
      let half = 0;
      let halfTime = "";
      const t0 = performance.now();
      while (stored < TURNS) {
        const count = Math.min(256, TURNS - stored);
        const name = `bench/s${Math.floor(stored / 2000)}`;
        const r = await m.append({ session: name, entries: Array.from({ length: count }, (_, i) => distractor(stored + i)) });
        stored += count;
        if (half === 0 && stored >= TURNS / 2) {
          half = r.entries[r.entries.length - 1]!.lsn;
          halfTime = (await m.read({ session: name, after: half - 1, limit: 1 })).turns[0]!.ts;
        }
      }
      ctx.log(`grew to ${TURNS.toLocaleString("en-US")} realistic turns in ${((performance.now() - t0) / 1000).toFixed(1)} s; as_of LSN ${half} (${halfTime})`);
      const query = (i: number) => questionFor((i * 7919) % TURNS);
      // A session of the first half, so a read as of half holds all of its turns (the same work as now).
      const session = (i: number) => `bench/s${i % Math.floor(TURNS / 2 / 2000)}`;
      return [
        await timed("search @100k", (i) => m.search({ query: query(i), limit: 10 })),
        await timed("search @100k as_of LSN", (i) => m.search({ query: query(i), limit: 10, as_of: half })),
        await timed("search @100k as_of time", (i) => m.search({ query: query(i), limit: 10, as_of: halfTime })),
        await timed("read 100 turns @100k", (i) => m.read({ session: session(i), limit: 100 })),
        await timed("read 100 turns @100k as_of LSN", (i) => m.read({ session: session(i), limit: 100, as_of: half })),
        await timed("read 100 turns @100k as_of time", (i) => m.read({ session: session(i), limit: 100, as_of: halfTime })),
        await timed("sessions @100k", () => m.sessions({ limit: 100 })),
        await timed("sessions @100k as_of LSN", () => m.sessions({ limit: 100, as_of: half })),
        await timed("diff of 2,000 turns @100k", (i) => m.diff({ from: half + (i % 10) * 2000, to: half + (i % 10) * 2000 + 2000 })),
      ];
    } finally {
      store.close();
    }
  },
};

export default section;
