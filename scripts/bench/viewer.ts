/**
 * Viewer figures (issue 18, "Measured"): the session page and a search page
 * of a 10,000-turn session, served over loopback by the app `zerodb serve`
 * runs (bound in this process, a logged-in browser session), as p95 of
 * pages at offsets spread over the session; and the largest session page's
 * HTML, which the page size bounds, not the session's. The same searches
 * in-process show what the engine takes of a search page's time. The stats
 * page over a year (the store's stats plus one `activity` aggregate) and
 * `activity` alone, in-process.
 */
import { join } from "node:path";
import { createApp } from "../../src/http/app.ts";
import { serveHttp } from "../../src/http/serve.ts";
import { createViewer } from "../../src/http/viewer/state.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { type Figure, type Section, percentile, scratch } from "./_lib.ts";

const TURNS = 10_000;

/** A turn of a captured session: mostly short, every 20th a 16 KiB tool result. */
function turn(i: number): { role: "user" | "assistant" | "tool"; content: string } {
  if (i % 20 === 19) return { role: "tool", content: `result ${i}: ${"output line of a tool run\n".repeat(650)}` };
  return { role: i % 2 ? "assistant" : "user", content: `turn ${i} about the deploy pipeline, flaky clock test number ${i % 97}, and the release checklist` };
}

const section: Section = {
  name: "viewer",
  async run(ctx) {
    const store = openSqliteStore(join(scratch(ctx.tmp, "store"), "data"));
    const viewer = createViewer({ store });
    const app = createApp({ store, viewer });
    const server = serveHttp({ fetch: app.fetch, host: "127.0.0.1", port: 0 });
    try {
      const m = store.memory("local");
      for (let i = 0; i < TURNS; i += 250) await m.append({ session: "proj/big", entries: Array.from({ length: 250 }, (_, j) => turn(i + j)) });
      const login = await fetch(`${server.url}/ui/login/once?code=${viewer.issueCode("local")}`, { redirect: "manual" });
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
      const get = async (path: string): Promise<{ ms: number; bytes: number }> => {
        const t0 = performance.now();
        const res = await fetch(`${server.url}${path}`, { headers: { cookie } });
        const body = await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
        return { ms: performance.now() - t0, bytes: body.byteLength };
      };
      const n = ctx.quick ? 60 : 300;
      await get("/ui/session?s=proj%2Fbig");
      const pages: { ms: number; bytes: number }[] = [];
      for (let i = 0; i < n; i++) pages.push(await get(`/ui/session?s=proj%2Fbig&after=${Math.floor((i * 7919) % TURNS)}`));
      const words = ["deploy", "flaky clock", "release checklist", "pipeline", "tool run"];
      const searches: number[] = [];
      for (let i = 0; i < n; i++) searches.push((await get(`/ui/search?q=${encodeURIComponent(words[i % words.length]!)}&session=proj%2Fbig`)).ms);
      // The same searches on the store in-process: what the engine itself takes, beside the page.
      const engine: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await m.search({ query: words[i % words.length]!, session: "proj/big" });
        engine.push(performance.now() - t0);
      }
      const stats: { ms: number; bytes: number }[] = [];
      const activity: number[] = [];
      for (let i = 0; i < n; i++) {
        stats.push(await get("/ui/stats?days=365"));
        const t0 = performance.now();
        await m.activity({ days: 366 });
        activity.push(performance.now() - t0);
      }
      const statsMs = stats.map((p) => p.ms);
      const ms = pages.map((p) => p.ms);
      const note = `${TURNS}-turn session, ${n} pages over loopback`;
      const figures: Figure[] = [
        { name: "session page p95", value: percentile(ms, 95), unit: "ms", min: Math.min(...ms), max: Math.max(...ms), runs: n, note },
        { name: "search page p95", value: percentile(searches, 95), unit: "ms", min: Math.min(...searches), max: Math.max(...searches), runs: n, note },
        {
          name: "same searches in-process p95",
          value: percentile(engine, 95),
          unit: "ms",
          min: Math.min(...engine),
          max: Math.max(...engine),
          runs: n,
          note: "Memory.search, no HTTP, no page",
        },
        { name: "session page HTML max", value: Math.max(...pages.map((p) => p.bytes)) / 1024, unit: "KiB", note: "200 turns a page, 8 KiB of each" },
        {
          name: "stats page p95 (365 days)",
          value: percentile(statsMs, 95),
          unit: "ms",
          min: Math.min(...statsMs),
          max: Math.max(...statsMs),
          runs: n,
          note: `stats + activity + 5 SVG charts, ${(Math.max(...stats.map((p) => p.bytes)) / 1024).toFixed(0)} KiB of HTML`,
        },
        {
          name: "activity in-process p95 (366 days)",
          value: percentile(activity, 95),
          unit: "ms",
          min: Math.min(...activity),
          max: Math.max(...activity),
          runs: n,
          note: "one GROUP BY over the tape_ts index",
        },
      ];
      return figures;
    } finally {
      await server.stop();
      store.close();
    }
  },
};

export default section;
