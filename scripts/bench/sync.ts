/**
 * Sync (issue 30, DESIGN.md 16): a first sync of a store of turns, push and
 * pull measured apart, beside `zerodb export | zerodb import` of the same
 * store in the same run (the ratio: above 1 is faster than the copy); then
 * a sync of 10 new records on that store, its time and the bytes it moved.
 * Every sync goes through a counting proxy on loopback in front of a real
 * `zerodb serve` (SQLite), so the bytes are what went over the wire.
 * The issue sets no limits: no targets. The hook's p95 with sync configured
 * is in the hook section.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type BenchContext, type Figure, type Section, perSecond, scratch, startServeProcess, summarize } from "./_lib.ts";
import { filler } from "./_workload.ts";
import { countingProxy } from "../../test/sync/_machines.ts";

/** Writes a JSONL export of `n` turns of the local tenant to `file`, in runs of 200 per session over 50 sessions. */
async function writeTape(file: string, n: number): Promise<void> {
  const ts = new Date(Date.UTC(2026, 0, 1)).toISOString();
  const w = Bun.file(file).writer();
  for (let i = 1; i <= n; i++) {
    const session = `proj/s${Math.floor((i - 1) / 200) % 50}`;
    w.write(`${JSON.stringify({ lsn: i, tenant: "local", ts, kind: "turn", session, role: "note", content: `note ${i}: ${filler(i)}`, meta: {} })}\n`);
    if (i % 10_000 === 0) await w.flush();
  }
  await w.end();
}

const n = (x: number) => x.toLocaleString("en-US");

const section: Section = {
  name: "sync",
  async run(ctx: BenchContext) {
    // ZERODB_BENCH_SYNC_TURNS sets another size for a run by hand (the 1M of the issue takes minutes to build).
    const size = Number(process.env.ZERODB_BENCH_SYNC_TURNS) || (ctx.quick ? 10_000 : 100_000);
    const rounds = ctx.quick ? 3 : 5;
    const homes = { a: scratch(ctx.tmp, "a"), b: scratch(ctx.tmp, "b"), copy: scratch(ctx.tmp, "copy"), server: scratch(ctx.tmp, "server") };
    const env = (home: string) => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb") });
    /** Runs the binary in a home; its stdout, after checking it exited 0. */
    const z = async (home: string, args: string[]): Promise<string> => {
      const p = Bun.spawn([ctx.bin, ...args], { env: env(home), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
      if (code !== 0) throw new Error(`zerodb ${args.join(" ")} exited ${code}: ${err.slice(0, 300)}`);
      return out;
    };

    const file = join(ctx.tmp, "tape.jsonl");
    await writeTape(file, size);
    await z(homes.a, ["import", file]);

    // The reference: the same store copied through its export, one pipe, into a fresh home.
    const t0 = performance.now();
    const exp = Bun.spawn([ctx.bin, "export"], { env: env(homes.a), stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    const imp = Bun.spawn([ctx.bin, "import", "-"], { env: env(homes.copy), stdin: exp.stdout, stdout: "ignore", stderr: "pipe" });
    const [ec, ic] = await Promise.all([exp.exited, imp.exited]);
    const copyMs = performance.now() - t0;
    if (ec !== 0 || ic !== 0) throw new Error(`export | import exited ${ec} | ${ic}: ${await new Response(imp.stderr).text()}`);
    const copyRate = perSecond(size, copyMs);

    mkdirSync(join(homes.server, "zerodb"), { recursive: true });
    const tokenFile = join(ctx.tmp, "team.token");
    await z(homes.server, ["token", "create", "--tenant", "team", "--out", tokenFile]);
    const server = await startServeProcess(ctx.bin, [], env(homes.server));
    const proxy = countingProxy(server.url);
    try {
      /** One timed `zerodb sync` of a home: its document, milliseconds and bytes over the wire. */
      const sync = async (home: string) => {
        const before = proxy.wire();
        const t = performance.now();
        const doc = JSON.parse(await z(home, ["sync", "--url", proxy.url, "--token-file", tokenFile, "--json"])) as { pushed: number; pulled: number };
        return { doc, ms: performance.now() - t, bytes: proxy.wire() - before };
      };
      const push = await sync(homes.a);
      const pull = await sync(homes.b);
      if (push.doc.pushed !== size || pull.doc.pulled !== size) throw new Error(`first sync moved ${push.doc.pushed} up, ${pull.doc.pulled} down, of ${size}`);
      const pushRate = perSecond(size, push.ms);
      const pullRate = perSecond(size, pull.ms);
      ctx.log(`export | import of ${n(size)} turns: ${(copyMs / 1000).toFixed(1)} s; tape ${(Bun.file(file).size / 2 ** 20).toFixed(1)} MiB`);

      // 10 new records on machine A, synced up, then down to B; the store they land on holds `size` turns.
      const up: { ms: number; bytes: number }[] = [];
      const down: { ms: number; bytes: number }[] = [];
      const idle: number[] = [];
      for (let r = 0; r < rounds; r++) {
        for (let i = 0; i < 10; i++) await z(homes.a, ["append", "--session", "proj/new", `round ${r} record ${i}: ${filler(size + r * 10 + i)}`]);
        const u = await sync(homes.a);
        const d = await sync(homes.b);
        if (u.doc.pushed !== 10 || d.doc.pulled !== 10) throw new Error(`10 new records moved ${u.doc.pushed} up, ${d.doc.pulled} down`);
        up.push(u);
        down.push(d);
        idle.push((await sync(homes.b)).ms);
      }
      const at = `@${n(size)} turns`;
      const bytesNote = (xs: { bytes: number }[]) => `${n(Math.round(xs.reduce((s, x) => s + x.bytes, 0) / xs.length))} bytes over the wire per sync`;
      const figures: Figure[] = [
        {
          name: `first sync, push ${n(size)} turns`,
          value: pushRate,
          unit: "records/s",
          runs: 1,
          ratio: { of: "export | import", value: pushRate / copyRate },
          note: `${(push.ms / 1000).toFixed(1)} s, ${(push.bytes / 2 ** 20).toFixed(1)} MiB over the wire`,
        },
        {
          name: `first sync, pull ${n(size)} turns`,
          value: pullRate,
          unit: "records/s",
          runs: 1,
          ratio: { of: "export | import", value: pullRate / copyRate },
          note: `${(pull.ms / 1000).toFixed(1)} s, ${(pull.bytes / 2 ** 20).toFixed(1)} MiB over the wire`,
        },
        { name: `export | import ${n(size)} turns`, value: copyRate, unit: "records/s", runs: 1, note: "the same store, one pipe, fresh home" },
        summarize(
          `sync pushing 10 new records ${at}`,
          up.map((x) => x.ms),
          "ms",
          { note: `${bytesNote(up)}; spawn to exit` },
        ),
        summarize(
          `sync pulling 10 new records ${at}`,
          down.map((x) => x.ms),
          "ms",
          { note: `${bytesNote(down)}; spawn to exit` },
        ),
        summarize(`sync with nothing new ${at}`, idle, "ms", { note: "spawn to exit" }),
        {
          name: `bytes of a sync pushing 10 new records ${at}`,
          value: up.reduce((s, x) => s + x.bytes, 0) / up.length,
          unit: "bytes",
          runs: up.length,
          note: "requests and responses, headers included",
        },
      ];
      if (size === 100_000) {
        ctx.log(
          "10 new records on the 100,000-turn store the first sync built, not on 1,000,000: building 1M (import ≈ 90 s, first push ≈ 150 s here) passes the section's minute",
        );
      }
      return figures;
    } finally {
      proxy.stop();
      await server.stop();
    }
  },
};

export default section;
