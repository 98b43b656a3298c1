/** In-process store figures (issue 2): durable appends, batches, search over a grown store. */
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { type Figure, type Section, percentile, perSecond, ratio, repeat, scratch, summarize } from "./_lib.ts";

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu memory agent session store search commit branch merge test build deploy".split(" ");

/** About 300 bytes of text from a fixed vocabulary, deterministic per i. */
export function filler(i: number): string {
  let s = "";
  let x = (i * 2654435761) >>> 0;
  while (s.length < 290) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += `${WORDS[x % WORDS.length]} `;
  }
  return s.trimEnd();
}

const section: Section = {
  name: "store",
  async run(ctx) {
    const out: Figure[] = [];
    const fsync = ctx.figures.get("machine: raw append+fsync (300 B)")?.value;

    // Durable single-entry appends: one transaction, one fsync each (I2).
    const n = ctx.quick ? 300 : 1000;
    const single = await repeat(5, async () => {
      const store = openSqliteStore(scratch(ctx.tmp, "single"));
      const m = store.memory("bench");
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await m.append({ session: "bench/single", entries: [{ role: "note", content: filler(i) }] });
      const rate = perSecond(n, performance.now() - t0);
      store.close();
      return rate;
    });
    const f1 = summarize("append durable single-entry", single, "entries/s");
    f1.ratio = ratio("raw fsync rate", f1.value, fsync, "≥ 0.8");
    out.push(f1);

    const batches = ctx.quick ? 50 : 200;
    const batched = await repeat(5, async () => {
      const store = openSqliteStore(scratch(ctx.tmp, "batch"));
      const m = store.memory("bench");
      const t0 = performance.now();
      for (let b = 0; b < batches; b++) {
        await m.append({ session: "bench/batch", entries: Array.from({ length: 64 }, (_, i) => ({ role: "note" as const, content: filler(b * 64 + i) })) });
      }
      const rate = perSecond(batches * 64, performance.now() - t0);
      store.close();
      return rate;
    });
    out.push(summarize("append batches of 64", batched, "entries/s", { note: "target ≥ 50,000" }));

    // Growth: search (and append) cost at 10k, 100k and (full run) 1M stored turns.
    const sizes = ctx.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
    const store = openSqliteStore(scratch(ctx.tmp, "growth"));
    const m = store.memory("bench");
    let stored = 0;
    for (const size of sizes) {
      const t0 = performance.now();
      while (stored < size) {
        const count = Math.min(256, size - stored);
        await m.append({
          session: `bench/s${Math.floor(stored / 10_000)}`,
          entries: Array.from({ length: count }, (_, i) => {
            const k = stored + i;
            // Every 500th turn holds a word found nowhere else.
            return { role: "note" as const, content: k % 500 === 0 ? `${filler(k)} planted${k}x` : filler(k) };
          }),
        });
        stored += count;
      }
      ctx.log(`grew to ${size.toLocaleString("en-US")} turns in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const lat: number[] = [];
      let found = 0;
      const queries = 200;
      for (let q = 0; q < queries; q++) {
        const k = ((q * 7919) % (size / 500)) * 500;
        const t = performance.now();
        const r = await m.search({ query: `planted${k}x`, limit: 10 });
        lat.push(performance.now() - t);
        if (r.hits.some((h) => h.snippet.includes(`planted${k}x`))) found++;
      }
      out.push({ name: `search planted word @${size.toLocaleString("en-US")} p50`, value: percentile(lat, 50), unit: "ms", runs: queries, note: `recall@10 ${found / queries}` });
      out.push({ name: `search planted word @${size.toLocaleString("en-US")} p95`, value: percentile(lat, 95), unit: "ms", runs: queries, note: size >= 1_000_000 ? "target < 10 ms" : undefined });
      const common: number[] = [];
      for (let q = 0; q < 20; q++) {
        const t = performance.now();
        await m.search({ query: WORDS[q % WORDS.length]!, limit: 10 });
        common.push(performance.now() - t);
      }
      out.push(summarize(`search common word @${size.toLocaleString("en-US")}`, common, "ms"));
      const appendLat = await repeat(50, async (i) => {
        const t = performance.now();
        await m.append({ session: "bench/grow-append", entries: [{ role: "note", content: filler(size + i) }] });
        return performance.now() - t;
      });
      out.push(summarize(`append single durable @${size.toLocaleString("en-US")}`, appendLat, "ms"));
    }
    store.close();
    return out;
  },
};

export default section;
