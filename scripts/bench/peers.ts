/**
 * zerodb beside what people use today (issue 8): `zerodb mcp` and the official
 * reference memory server get the same workload over the SDK's stdio client
 * in the same run, and every figure of ours carries its ratio to theirs
 * (zerodb / reference: above 1 is more, below 1 is less).
 */
import type { Contender } from "./_contenders.ts";
import { REFERENCE_ENTRY, connect, referenceContender, zerodbContender } from "./_contenders.ts";
import { type DriveResult, IDLE_MS, PLANTED_QUERIES, drive } from "./_drive.ts";
import { rawFsyncRate } from "./machine.ts";
import { type BenchContext, type Figure, type Section, median, pairedRatios, percentile, scratch, spawnMs, summarize } from "./_lib.ts";

/** Memories each server holds when it is measured. */
const SIZES = [1_000, 10_000];
/** Cold starts measured per server. */
const SPAWNS = 10;

/** Milliseconds from spawn to a completed initialize handshake. */
async function coldStartMs(c: Contender): Promise<number> {
  const t0 = performance.now();
  const conn = await connect(c);
  const ms = performance.now() - t0;
  await conn.close();
  return ms;
}

const n = (x: number) => x.toLocaleString("en-US");

/** zerodb's figure with its ratio to the reference's, both from this run. */
function _versus(ours: Figure, theirs: Figure | undefined, of: string, note?: string): Figure {
  if (!theirs) return ours;
  return { ...ours, ratio: { of, value: ours.value / theirs.value }, ...(note ? { note } : {}) };
}

type AtSize = DriveResult["sizes"][number];

/** What is reported at each size, each made the same way for both servers. */
const MEASURES: [string, (s: AtSize) => Figure][] = [
  [
    "writes",
    (s) =>
      summarize("", s.runs, "calls/s", {
        note: `${s.runs.length} runs of consecutive calls between ${n(s.windowStart)} and ${n(s.size)} memories; overall ${n(Math.round(s.overall))}/s`,
      }),
  ],
  ["search planted word p50", (s) => ({ ...spread(s.plantedMs), value: percentile(s.plantedMs, 50) })],
  ["search planted word p95", (s) => ({ ...spread(s.plantedMs), value: percentile(s.plantedMs, 95) })],
  ["search planted word recall@10", (s) => ({ name: "", value: s.recall, unit: "", runs: PLANTED_QUERIES })],
  ["search common word", (s) => summarize("", s.commonMs, "ms", { note: `${n(s.commonHits)} hits returned` })],
];

function spread(ms: number[]): Figure {
  return { name: "", value: 0, unit: "ms", min: Math.min(...ms), max: Math.max(...ms), runs: ms.length };
}

/** Figures of one size for both servers, each of ours with its ratio to theirs. */
function sizeFigures(size: number, ours: DriveResult, theirs: DriveResult): Figure[] {
  const a = ours.sizes.find((s) => s.size === size)!;
  const b = theirs.sizes.find((s) => s.size === size)!;
  const seeded = b.seeded > 0 ? `reference: ${n(b.seeded)} memories seeded in its file, the rest over MCP (quick run)` : undefined;
  const out: Figure[] = [];
  for (const [what, make] of MEASURES) {
    const mine = { ...make(a), name: `${what} @${n(size)}: zerodb mcp` };
    const theirsF = { ...make(b), name: `${what} @${n(size)}: server-memory (node)` };
    if (theirsF.value > 0) mine.ratio = { of: "server-memory", value: mine.value / theirsF.value };
    if (seeded) theirsF.note = [seeded, theirsF.note].filter(Boolean).join("; ");
    out.push(mine, theirsF);
  }
  if (a.idleMs.length > 0 && b.idleMs.length > 0) {
    const mine = { ...spread(a.idleMs), value: percentile(a.idleMs, 50), name: `search planted word after ${IDLE_MS} ms idle p50 @${n(size)}: zerodb mcp` };
    const theirsF = {
      ...spread(b.idleMs),
      value: percentile(b.idleMs, 50),
      name: `search planted word after ${IDLE_MS} ms idle p50 @${n(size)}: server-memory (node)`,
    };
    out.push(
      {
        ...mine,
        ratio: { of: "server-memory", value: mine.value / theirsF.value },
        note: "what an agent sees between thoughts: includes waking the idle server",
      },
      theirsF,
    );
  }
  if (a.probes.length === a.runs.length && a.runs.length > 0) {
    const ratios = a.runs.map((r, i) => r / a.probes[i]!);
    out.push(
      summarize(`writes @${n(size)} beside raw fsync: zerodb mcp`, a.runs, "calls/s", {
        ratio: { of: "raw fsync, paired runs", value: median(ratios) },
        note: `raw append+fsync ${n(Math.round(median(a.probes)))}/s, measured just before each run`,
      }),
    );
  }
  return out;
}

const section: Section = {
  name: "peers",
  async run(ctx: BenchContext) {
    const out: Figure[] = [];
    const zerodb = zerodbContender(ctx.bin, scratch(ctx.tmp, "zerodb"));
    const reference = referenceContender(scratch(ctx.tmp, "reference"));
    if (!(await Bun.file(REFERENCE_ENTRY).exists())) throw new Error("the reference server is missing: run npm install");

    // Cold start: spawns alternate, so a burst of background load hits both alike. One unmeasured
    // spawn each first warms the page cache and lets zerodb create its store.
    await coldStartMs(zerodb);
    await coldStartMs(reference);
    const starts = await pairedRatios(
      SPAWNS,
      () => coldStartMs(zerodb),
      () => coldStartMs(reference),
    );
    out.push(
      summarize("cold start to initialized: zerodb mcp", starts.values, "ms", {
        ratio: { of: "server-memory, paired spawns", value: median(starts.ratios) },
        note: "SDK Client over stdio, spawn to initialized",
      }),
    );
    out.push(summarize("cold start to initialized: server-memory (node)", starts.references, "ms"));

    // The reference rewrites its whole file on every write (about 30 calls/s at 10,000 here), so writing
    // all 10,000 over MCP costs minutes: the quick run seeds its file to 9,900 and writes the last 100 over MCP.
    const seedTo = ctx.quick ? new Map([[10_000, 9_900]]) : undefined;
    if (ctx.quick) ctx.log("quick run: the reference server's file is seeded to 9,900 memories; its writes @10,000 are the last 100, made over MCP");
    ctx.log(`${zerodb.label}: ${zerodb.searchNote}; ${reference.label}: ${reference.searchNote}`);
    const probe = () => rawFsyncRate(ctx.tmp, 200);
    const [ours, theirs] = (await drive(
      [
        { contender: zerodb, probe },
        { contender: reference, seedTo },
      ],
      SIZES,
      ctx.log,
    )) as [DriveResult, DriveResult];
    for (const size of SIZES) out.push(...sizeFigures(size, ours, theirs));

    const at = `@${n(SIZES.at(-1)!)}`;
    if (ours.peakRssMiB !== undefined && theirs.peakRssMiB !== undefined) {
      out.push({
        name: `peak RSS ${at}: zerodb mcp`,
        value: ours.peakRssMiB,
        unit: "MiB",
        ratio: { of: "server-memory", value: ours.peakRssMiB / theirs.peakRssMiB },
        note: "VmHWM just before closing",
      });
      out.push({ name: `peak RSS ${at}: server-memory (node)`, value: theirs.peakRssMiB, unit: "MiB", note: "VmHWM just before closing" });
    }
    out.push({
      name: `bytes on disk ${at}: zerodb mcp`,
      value: ours.diskBytes / 2 ** 20,
      unit: "MiB",
      ratio: { of: "server-memory", value: ours.diskBytes / theirs.diskBytes },
      note: "store with its full-text index, after closing",
    });
    out.push({ name: `bytes on disk ${at}: server-memory (node)`, value: theirs.diskBytes / 2 ** 20, unit: "MiB", note: "one JSONL file, no index" });

    out.push(await roundTripFigure(zerodb));
    const version = await versionFigure(ctx);
    if (version) out.push(version);
    return out;
  },
};

/**
 * What every MCP call costs before any write: a read-only call that touches
 * almost nothing (JSON-RPC over two pipes, validation, one indexed read). A
 * durable remember is this plus one append, so the two explain its rate.
 */
async function roundTripFigure(zerodb: Contender): Promise<Figure> {
  const conn = await connect(zerodb);
  try {
    const rates: number[] = [];
    for (let run = 0; run < 10; run++) {
      const t0 = performance.now();
      for (let i = 0; i < 50; i++) {
        const r = await conn.client.callTool({ name: "sessions", arguments: { limit: 1 } });
        if (r.isError) throw new Error(`sessions failed: ${JSON.stringify(r.content).slice(0, 200)}`);
      }
      rates.push((50 * 1000) / (performance.now() - t0));
    }
    return summarize("read-only round trip (sessions, limit 1): zerodb mcp", rates, "calls/s", { note: "the floor under every call; 10 runs of 50" });
  } finally {
    await conn.close();
  }
}

/** `zerodb version` beside `bun -e 0` (spawn to exit), unless the startup section measured it already. */
async function versionFigure(ctx: BenchContext): Promise<Figure | undefined> {
  if ([...ctx.figures.keys()].some((k) => k.startsWith("startup: ") && k.includes("version"))) return undefined;
  const r = await pairedRatios(
    SPAWNS,
    () => spawnMs([ctx.bin, "version"]),
    () => spawnMs([process.execPath, "-e", "0"]),
  );
  return summarize("zerodb version", r.values, "ms", {
    ratio: { of: "bun -e 0, paired spawns", value: median(r.ratios) },
    note: `bun -e 0 ${median(r.references).toFixed(1)} ms in the same pairs`,
  });
}

export default section;
