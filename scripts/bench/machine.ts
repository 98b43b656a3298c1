/**
 * The machine's own limits, measured in the same run as everything else and
 * first, so later sections can set their figures beside them: the disk's
 * fsync rate, what SQLite itself reaches on it, hashing and copying speed,
 * and how fast a bare runtime starts.
 */
import { Database } from "bun:sqlite";
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { $ } from "bun";
import { type Figure, type Section, perSecond, repeat, scratch, spawnMs, summarize } from "./_lib.ts";

/** Small append + fsync writes to one new file, per second: the floor under any durable write. */
export function rawFsyncRate(dir: string, writes: number): number {
  const fd = openSync(join(scratch(dir, "fsync"), "fsync.bin"), "a");
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

/**
 * One 300-byte row per transaction into a one-table SQLite database in the
 * store's durability mode (WAL, synchronous=FULL): what the engine reaches on
 * this disk with no index, no full-text and no zerodb code at all.
 */
export function bareSqliteRate(dir: string, writes: number): number {
  const db = new Database(join(scratch(dir, "sqlite"), "bare.sqlite"), { create: true });
  try {
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = FULL");
    db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)");
    const insert = db.query("INSERT INTO t (body) VALUES (?)");
    const body = "x".repeat(300);
    const t0 = performance.now();
    for (let i = 0; i < writes; i++) db.transaction(() => insert.run(body)).immediate();
    return perSecond(writes, performance.now() - t0);
  } finally {
    db.close();
  }
}

const section: Section = {
  name: "machine",
  async run(ctx) {
    const out: Figure[] = [];
    const writes = ctx.quick ? 300 : 1000;
    out.push(summarize("raw append+fsync (300 B)", await repeat(5, () => rawFsyncRate(ctx.tmp, writes)), "writes/s"));
    out.push(summarize("bare SQLite insert, WAL + synchronous=FULL", await repeat(5, () => bareSqliteRate(ctx.tmp, writes)), "commits/s"));

    const mib = ctx.quick ? 256 : 1024;
    const file = join(ctx.tmp, "big.bin");
    await $`head -c ${mib * 1048576} /dev/urandom > ${file}`.quiet();
    const tools: [string, string[]][] = [
      [`openssl dgst -sha256 (${mib} MiB)`, ["openssl", "dgst", "-sha256", file]],
      [`sha256sum (${mib} MiB)`, ["sha256sum", file]],
      [`cp (${mib} MiB)`, ["cp", file, join(ctx.tmp, "copy.bin")]],
      // The reference MCP server runs under node; its start-up is the floor of theirs.
      ["node -e 0", ["node", "-e", "0"]],
      ["bun -e 0", [process.execPath, "-e", "0"]],
    ];
    for (const [name, cmd] of tools) {
      // A tool missing from this machine costs its figure, not the section.
      if (!Bun.which(cmd[0]!)) {
        ctx.log(`${cmd[0]} not found: no figure for ${name}`);
        continue;
      }
      if (name.endsWith("-e 0")) out.push(summarize(name, await repeat(10, () => spawnMs(cmd)), "ms"));
      else out.push(summarize(name, await repeat(3, async () => perSecond(mib, await spawnMs(cmd))), "MiB/s"));
    }
    return out;
  },
};

export default section;
