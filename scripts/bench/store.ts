/**
 * In-process store figures (issues 2 and 8): durable appends beside the raw
 * fsync rate measured back to back, batches, what one commit writes to the
 * WAL, and growth: append and search at 10k, 100k and (full run) 1M turns.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { type Figure, type Section, median, pairedRatios, percentile, perSecond, repeat, scratch, summarize } from "./_lib.ts";
import { WORDS, entryText, filler, plantedTarget, plantedWord } from "./_workload.ts";
import { rawFsyncRate } from "./machine.ts";
import { type BareTransaction, bareStore, bareWrite } from "./_bare.ts";
import { turnClass } from "../../src/search/search-class.ts";
import { indexText } from "../../src/search/text.ts";
import { contentHash } from "../../src/store/hashes.ts";
import { rowChecksum } from "../../src/store/sqlite/_tape.ts";

/** Kept for sections that imported the filler from here. */
export { filler };

/** One entry in this many holds a planted word during growth. */
const PLANT_EVERY = 500;
const QUERIES = 200;
const COMMON = 20;
const GROW_APPENDS = 50;

/** Appends made before timing: the WAL's first growth to its working size (about 90 commits) is behind them. */
const WARM_APPENDS = 150;

/**
 * Single-entry appends per second into a fresh store, in the steady state a
 * long-running server writes in: after the WAL has grown once, commits
 * overwrite it in place. `skipFsync` is for diagnosis only: the same commits
 * with synchronous=OFF on a scratch store show what a commit costs besides
 * its fsync. zerodb itself never runs so (I2).
 */
async function singleRate(dir: string, n: number, skipFsync = false): Promise<number> {
  const store = openSqliteStore(scratch(dir, "single"));
  try {
    if (skipFsync) store.db.run("PRAGMA synchronous = OFF");
    const m = store.memory("bench");
    for (let i = 0; i < WARM_APPENDS; i++) await m.append({ session: "bench/single", entries: [{ role: "note", content: filler(n + i) }] });
    // The text is made before the clock starts: the figure is the store's, not the generator's.
    const texts = Array.from({ length: n }, (_, i) => filler(i));
    const t0 = performance.now();
    for (const content of texts) await m.append({ session: "bench/single", entries: [{ role: "note", content }] });
    return perSecond(n, performance.now() - t0);
  } finally {
    store.close();
  }
}

/** The appends of the batch figure: `batches` batches of 64 notes. */
function batchInputs(batches: number) {
  return Array.from({ length: batches }, (_, b) => ({
    session: "bench/batch",
    entries: Array.from({ length: 64 }, (_, i) => ({ role: "note" as const, content: filler(b * 64 + i) })),
  }));
}

/** Entries per second appended in batches of 64 into a fresh store. */
async function batchRate(dir: string, batches: number): Promise<number> {
  const store = openSqliteStore(scratch(dir, "batch"));
  try {
    const m = store.memory("bench");
    const inputs = batchInputs(batches);
    const t0 = performance.now();
    for (const input of inputs) await m.append(input);
    return perSecond(batches * 64, performance.now() - t0);
  } finally {
    store.close();
  }
}

/** The same rows as batchRate's, written by bare SQLite into a store of the same schema (_bare.ts), per second. */
function bareBatchRate(dir: string, batches: number): number {
  const db = bareStore(scratch(dir, "bare-batch"));
  const data = JSON.stringify({ role: "note" });
  const txs: BareTransaction[] = batchInputs(batches).map((input) => ({
    rows: input.entries.map((e) => ({
      tenant: "bench",
      kind: "turn",
      ts: Date.now(),
      subject: input.session,
      idem_key: null,
      op_hash: null,
      content_hash: contentHash(e.content),
      bytes: Buffer.byteLength(e.content),
      text: e.content,
      data,
      checksum: rowChecksum("bench", { subject: input.session, text: e.content, data }),
      sclass: turnClass(e.role, undefined),
      index: indexText(e.content),
    })),
  }));
  return perSecond(batches * 64, bareWrite(db, txs));
}

/**
 * WAL frames one durable single-entry append writes: automatic checkpoints
 * are switched off on this scratch store only, so the WAL's growth over n
 * commits is all theirs (a frame is a 24-byte header plus one page, https://sqlite.org/fileformat.html#the_write_ahead_log).
 * `tables` says whose pages they were: after each commit, its frames' page
 * numbers (from their headers) named by the dbstat table (https://sqlite.org/dbstat.html).
 */
async function walFramesPerAppend(dir: string, n: number): Promise<{ frames: number; tables: string }> {
  const data = scratch(dir, "wal");
  const store = openSqliteStore(data);
  let fd: number | undefined;
  try {
    const m = store.memory("bench");
    await m.append({ session: "bench/wal", entries: [{ role: "note", content: filler(0) }] });
    store.db.run("PRAGMA wal_autocheckpoint = 0");
    store.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    const page = (store.db.query("PRAGMA page_size").get() as { page_size: number }).page_size;
    const pages = store.db.query("SELECT name, pageno FROM dbstat");
    fd = openSync(join(data, "zerodb.sqlite-wal"), "r");
    const header = Buffer.alloc(4);
    const count = new Map<string, number>();
    let at = 32;
    for (let i = 1; i <= n; i++) {
      await m.append({ session: "bench/wal", entries: [{ role: "note", content: filler(i) }] });
      const owner = new Map((pages.all() as { name: string; pageno: number }[]).map((r) => [r.pageno, r.name]));
      for (; at + 24 + page <= fstatSync(fd).size; at += 24 + page) {
        readSync(fd, header, 0, 4, at);
        const pgno = header.readUInt32BE(0);
        // Page 1 holds the file header (page count, free list) besides sqlite_schema's root.
        const name = pgno === 1 ? "page 1" : (owner.get(pgno) ?? "free pages");
        count.set(name, (count.get(name) ?? 0) + 1);
      }
    }
    const tables = [...count]
      .sort((a, b) => b[1] - a[1])
      .filter(([, c]) => c / n >= 0.05)
      .map(([name, c]) => `${name} ${(c / n).toFixed(2)}`)
      .join(", ");
    return { frames: (at - 32) / (24 + page) / n, tables };
  } finally {
    if (fd !== undefined) closeSync(fd);
    store.close();
  }
}

const fmtN = (x: number) => x.toLocaleString("en-US");

const section: Section = {
  name: "store",
  async run(ctx) {
    const out: Figure[] = [];

    // Durable single-entry appends: one transaction, one fsync each (I2). Each run is paired with a
    // raw fsync run just before it, so the ratio compares the two under the same background load.
    const n = ctx.quick ? 300 : 1000;
    const single = await pairedRatios(
      ctx.quick ? 5 : 9,
      () => singleRate(ctx.tmp, n),
      () => rawFsyncRate(ctx.tmp, n),
    );
    out.push(
      summarize("append durable single-entry", single.values, "entries/s", {
        ratio: { of: "raw fsync, paired runs", value: median(single.ratios) },
        note: `raw fsync ${fmtN(Math.round(median(single.references)))}/s in the same pairs; ${n} appends per run after ${WARM_APPENDS} unmeasured`,
      }),
    );
    const unsynced = await repeat(5, () => singleRate(ctx.tmp, n, true));
    const perAppend = 1000 / median(single.values);
    const work = 1000 / median(unsynced);
    out.push(
      summarize("append single-entry, fsync skipped (diagnosis only)", unsynced, "entries/s", {
        note: `so of ${perAppend.toFixed(3)} ms per durable append, ${work.toFixed(3)} ms is the commit's work and ${(perAppend - work).toFixed(3)} ms its fsync`,
      }),
    );
    const wal = await walFramesPerAppend(ctx.tmp, 200);
    out.push({
      name: "WAL frames per durable single-entry append",
      value: wal.frames,
      unit: "frames",
      runs: 200,
      note: `one page each, fsynced together: ${wal.tables}`,
    });
    // Paired with bare SQLite writing the same rows into the same schema just before each run (issue 32).
    const batches = ctx.quick ? 50 : 200;
    const batch = await pairedRatios(
      5,
      () => batchRate(ctx.tmp, batches),
      () => bareBatchRate(ctx.tmp, batches),
    );
    out.push(
      summarize("append batches of 64", batch.values, "entries/s", {
        ratio: { of: "bare SQLite, same rows and indexes, paired runs", value: median(batch.ratios) },
        note: `bare SQLite ${fmtN(Math.round(median(batch.references)))}/s in the same pairs`,
      }),
    );

    // Growth: the same store grows through each size; at each, planted-word and common-word searches and durable appends.
    const sizes = ctx.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
    const store = openSqliteStore(scratch(ctx.tmp, "growth"));
    try {
      const m = store.memory("bench");
      const lsnOf = new Map<number, number>();
      let stored = 0;
      for (const size of sizes) {
        const t0 = performance.now();
        while (stored < size) {
          const count = Math.min(256, size - stored);
          const r = await m.append({
            session: `bench/s${Math.floor(stored / 10_000)}`,
            entries: Array.from({ length: count }, (_, i) => ({ role: "note" as const, content: entryText(stored + i, PLANT_EVERY) })),
          });
          for (const [i, e] of r.entries.entries()) if ((stored + i) % PLANT_EVERY === 0) lsnOf.set(stored + i, e.lsn);
          stored += count;
        }
        const at = `@${fmtN(size)}`;
        ctx.log(`grew to ${fmtN(size)} turns in ${((performance.now() - t0) / 1000).toFixed(1)} s (batches of 256)`);
        const lat: number[] = [];
        let found = 0;
        for (let q = 0; q < QUERIES; q++) {
          const k = plantedTarget(q, size, PLANT_EVERY);
          const t = performance.now();
          const r = await m.search({ query: plantedWord(k), limit: 10 });
          lat.push(performance.now() - t);
          if (r.hits.some((h) => h.lsn === lsnOf.get(k))) found++;
        }
        const spread = { min: Math.min(...lat), max: Math.max(...lat), runs: QUERIES };
        out.push({ name: `search planted word ${at} p50`, value: percentile(lat, 50), unit: "ms", ...spread, note: `recall@10 ${found / QUERIES}` });
        out.push({ name: `search planted word ${at} p95`, value: percentile(lat, 95), unit: "ms", ...spread });
        const common = await repeat(COMMON, async (q) => {
          const t = performance.now();
          await m.search({ query: WORDS[q % WORDS.length]!, limit: 10 });
          return performance.now() - t;
        });
        out.push(summarize(`search common word ${at} (limit 10)`, common, "ms", { note: "BM25 ranks every turn holding the word" }));
        const appendMs = await repeat(GROW_APPENDS, async (i) => {
          const content = filler(size + i);
          const t = performance.now();
          await m.append({ session: "bench/grow-append", entries: [{ role: "note", content }] });
          return performance.now() - t;
        });
        out.push(summarize(`append durable single-entry ${at}`, appendMs, "ms"));
      }
    } finally {
      store.close();
    }
    return out;
  },
};

export default section;
