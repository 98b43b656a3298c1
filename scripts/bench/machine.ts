/** The machine's own limits, measured in the same run as everything else. */
import { $ } from "bun";
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { type Figure, type Section, perSecond, repeat, summarize } from "./_lib.ts";

/** Small append + fsync writes to one file, per second. */
export function rawFsyncRate(dir: string, writes: number): number {
  const fd = openSync(join(dir, "fsync.bin"), "a");
  const buf = Buffer.alloc(300, 120);
  const t0 = performance.now();
  for (let i = 0; i < writes; i++) {
    writeSync(fd, buf);
    fsyncSync(fd);
  }
  const ms = performance.now() - t0;
  closeSync(fd);
  return perSecond(writes, ms);
}

/** Milliseconds from spawn to exit of a command. */
async function spawnMs(cmd: string[]): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { stdout: "ignore", stderr: "ignore" });
  await p.exited;
  return performance.now() - t0;
}

const section: Section = {
  name: "machine",
  async run(ctx) {
    const out: Figure[] = [];
    const writes = ctx.quick ? 300 : 1000;
    out.push(summarize("raw append+fsync (300 B)", await repeat(5, () => rawFsyncRate(ctx.tmp, writes)), "writes/s"));

    const mib = ctx.quick ? 256 : 1024;
    const file = join(ctx.tmp, "big.bin");
    await $`head -c ${mib * 1048576} /dev/urandom > ${file}`.quiet();
    const timeCmd = async (cmd: string[]) => {
      const ms = await spawnMs(cmd);
      return perSecond(mib, ms);
    };
    out.push(summarize(`openssl dgst -sha256 (${mib} MiB)`, await repeat(3, () => timeCmd(["openssl", "dgst", "-sha256", file])), "MiB/s"));
    out.push(summarize(`sha256sum (${mib} MiB)`, await repeat(3, () => timeCmd(["sha256sum", file])), "MiB/s"));
    out.push(summarize(`cp (${mib} MiB)`, await repeat(3, () => timeCmd(["cp", file, join(ctx.tmp, "copy.bin")])), "MiB/s"));

    const node = await repeat(10, () => spawnMs(["node", "-e", "0"]));
    out.push(summarize("node -e 0", node, "ms"));
    const bun = await repeat(10, () => spawnMs([process.execPath, "-e", "0"]));
    out.push(summarize("bun -e 0", bun, "ms"));
    return out;
  },
};

export default section;
