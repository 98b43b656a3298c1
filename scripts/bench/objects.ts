/**
 * Object throughput (issue 10): `zerodb object put` and `object get` of a
 * 1 GiB file (256 MiB with --quick), end to end through the binary, beside
 * what the machine does for the same work measured in this run. A put hashes
 * and copies, so its reference is `openssl dgst -sha256` followed by `cp`;
 * a get copies, so its reference is `cp`.
 */
import { $ } from "bun";
import { join } from "node:path";
import { type Figure, type Section, perSecond, ratio, repeat, scratch, summarize } from "./_lib.ts";

/** Milliseconds from spawn to exit of the binary, failing loudly on a non-zero exit. */
async function timed(cmd: string[], env: Record<string, string>): Promise<{ ms: number; stdout: string }> {
  // Earlier runs' dirty pages would otherwise be flushed by this run's fsync and counted against it.
  await $`sync`.quiet();
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}: ${stderr}`);
  return { ms, stdout };
}

/** MiB/s of doing two things one after the other at rates a and b. */
function serial(a: number | undefined, b: number | undefined): number | undefined {
  return a && b ? 1 / (1 / a + 1 / b) : undefined;
}

const section: Section = {
  name: "objects",
  async run(ctx) {
    const mib = ctx.quick ? 256 : 1024;
    const file = join(ctx.tmp, "object.bin");
    await $`head -c ${mib * 1048576} /dev/urandom > ${file}`.quiet();
    const openssl = ctx.figures.get(`machine: openssl dgst -sha256 (${mib} MiB)`)?.value;
    const cp = ctx.figures.get(`machine: cp (${mib} MiB)`)?.value;
    const out: Figure[] = [];

    // A fresh home per put, so every run publishes a new blob (fsyncs included, I7).
    let digest = "";
    let home = "";
    const puts = await repeat(3, async () => {
      home = scratch(ctx.tmp, "home");
      const r = await timed([ctx.bin, "object", "put", file, "--json"], { HOME: home, ZERODB_HOME: home });
      digest = (JSON.parse(r.stdout) as { object: string }).object;
      return perSecond(mib, r.ms);
    });
    const put = summarize(`object put (${mib} MiB, CLI)`, puts, "MiB/s");
    put.ratio = ratio("openssl sha256 then cp", put.value, serial(openssl, cp));
    put.note = "includes start-up and the fsyncs of I7; cp does not fsync";
    out.push(put);

    let n = 0;
    const gets = await repeat(3, async () => {
      const r = await timed([ctx.bin, "object", "get", digest, "--out", join(ctx.tmp, `out-${n++}.bin`), "--json"], { HOME: home, ZERODB_HOME: home });
      return perSecond(mib, r.ms);
    });
    const get = summarize(`object get (${mib} MiB, CLI)`, gets, "MiB/s");
    get.ratio = ratio("cp", get.value, cp);
    get.note = "includes start-up and an fsync of the new file";
    out.push(get);
    return out;
  },
};

export default section;
