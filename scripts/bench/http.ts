/**
 * HTTP figures (issue 3): appends and searches through a real `zerodb serve`
 * (ctx.bin, port 0, a token) from 16 concurrent clients, each beside the same
 * work done in-process on the store in the same run, as a ratio HTTP /
 * in-process: what the door costs on top of the store.
 */
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import type { Memory } from "../../src/store/types.ts";
import { type BenchContext, type Figure, type Section, perSecond, ratio, repeat, scratch, startServeProcess, summarize } from "./_lib.ts";
import { filler } from "./store.ts";

const CLIENTS = 16;

/** The operations each measurement drives, over HTTP or in-process. */
interface Driver {
  append(session: string, contents: string[]): Promise<void>;
  search(query: string): Promise<void>;
}

function inProcess(m: Memory): Driver {
  return {
    append: async (session, contents) => void (await m.append({ session, entries: contents.map((content) => ({ role: "note", content })) })),
    search: async (query) => void (await m.search({ query, limit: 10 })),
  };
}

function overHttp(url: string, token: string): Driver {
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(url + path, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  return {
    append: (session, contents) =>
      call("/v1/turns", { method: "POST", body: JSON.stringify({ session, entries: contents.map((content) => ({ role: "note", content })) }) }),
    search: (query) => call(`/v1/search?q=${encodeURIComponent(query)}&limit=10`),
  };
}

/** Runs `total` operations spread over 16 concurrent clients; returns operations per second. */
async function concurrent(total: number, op: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < total) await op(next++);
    }),
  );
  return perSecond(total, performance.now() - t0);
}

/** Starts `zerodb serve --port 0` on a new home with a token; returns its URL, the token and a stop function. */
async function startServe(ctx: BenchContext): Promise<{ url: string; token: string; stop(): Promise<void> }> {
  const home = scratch(ctx.tmp, "home");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb") };
  const made = Bun.spawnSync([ctx.bin, "token", "create", "--tenant", "bench", "--json"], { env });
  if (made.exitCode !== 0) throw new Error(`token create failed: ${made.stderr.toString()}`);
  const { token } = JSON.parse(made.stdout.toString()) as { token: string };
  const server = await startServeProcess(ctx.bin, [], env);
  return { ...server, token };
}

const section: Section = {
  name: "http",
  async run(ctx) {
    const out: Figure[] = [];
    const singles = ctx.quick ? 400 : 1600;
    const batches = ctx.quick ? 48 : 160;
    const searches = ctx.quick ? 1000 : 4000;
    const server = await startServe(ctx);
    const store = openSqliteStore(scratch(ctx.tmp, "inproc"));
    try {
      const http = overHttp(server.url, server.token);
      const local = inProcess(store.memory("bench"));
      let round = 0;
      /** One figure per driver, measured alternately so background load hits both alike. */
      const pair = async (name: string, unit: string, runs: number, work: (d: Driver, r: number) => Promise<number>) => {
        const h: number[] = [];
        const l: number[] = [];
        await repeat(runs, async () => {
          const r = round++;
          l.push(await work(local, r));
          h.push(await work(http, r));
        });
        const inproc = summarize(`${name} in-process`, l, unit);
        const f = summarize(`${name} over HTTP`, h, unit);
        f.ratio = ratio("in-process", f.value, inproc.value);
        out.push(inproc, f);
      };

      await pair(`append single-entry, ${CLIENTS} clients`, "entries/s", 3, (d, r) =>
        concurrent(singles, (i) => d.append(`bench/single-${r}-${i % CLIENTS}`, [filler(i)])),
      );
      await pair(`append batches of 64, ${CLIENTS} clients`, "entries/s", 3, async (d, r) => {
        const rate = await concurrent(batches, (b) =>
          d.append(
            `bench/batch-${r}-${b % CLIENTS}`,
            Array.from({ length: 64 }, (_, i) => filler(b * 64 + i)),
          ),
        );
        return rate * 64;
      });
      // Search over what the appends stored (about the same corpus on both sides), plus planted words.
      const words = ["alpha", "memory agent", "deploy build", "zulu", "search store commit", "victor whiskey"];
      await pair(`search, ${CLIENTS} clients`, "requests/s", 3, (d) => concurrent(searches, (i) => d.search(words[i % words.length]!)));
      ctx.log(`server ${server.url}: ${singles} single appends, ${batches} batches of 64 and ${searches} searches per run`);
    } finally {
      store.close();
      await server.stop();
    }
    return out;
  },
};

export default section;
