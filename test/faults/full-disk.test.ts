/**
 * A full disk (issue 9): writes fail with `storage_full`, nothing half-written
 * is visible, and the store works again once space is back. Uses a small
 * tmpfs mount (root only); skips with a message where mounting is refused.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { runZ, tempDir } from "../helpers.ts";

const root = tempDir("zerodb-full-");
const mnt = join(root.path, "mnt");
mkdirSync(mnt);
const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mnt]);
const mounted = mount.exitCode === 0;
if (!mounted) console.warn(`skipping full-disk tests: cannot mount a tmpfs here (${mount.stderr.toString().trim()})`);

afterAll(() => {
  if (mounted) Bun.spawnSync(["umount", "-l", mnt]);
  root[Symbol.dispose]();
});

function resize(size: string) {
  const r = Bun.spawnSync(["mount", "-o", `remount,size=${size}`, mnt]);
  if (r.exitCode !== 0) throw new Error(`remount failed: ${r.stderr}`);
}

describe.skipIf(!mounted)("full disk", () => {
  test("appends fail with storage_full, nothing half-written, and the store recovers when space is back", async () => {
    const dataDir = join(mnt, "data");
    const store = openSqliteStore(dataDir);
    const m = store.memory("local");
    const acked: string[] = [];
    let failure: any;
    for (let i = 0; i < 1000 && !failure; i++) {
      const content = `entry ${i} ${"x".repeat(60_000)}`;
      try {
        await m.append({ session: "fill", entries: [{ role: "note", content }] });
        acked.push(content.slice(0, 12));
      } catch (e) {
        failure = e;
      }
    }
    expect(failure?.code).toBe("storage_full");
    expect(failure?.message).toContain("disk is full");
    expect(acked.length).toBeGreaterThan(5);
    // Facts fail the same way; nothing of the failed writes is visible.
    const f = await m.factSet({ key: "k", value: "y".repeat(200_000) }).catch((e) => e);
    expect(f.code).toBe("storage_full");
    const seen = (await m.read({ session: "fill", limit: 1000 })).turns.map((t) => t.content.slice(0, 12));
    expect(seen).toEqual(acked);
    expect((await m.factGet({ key: "k" }).catch((e) => e)).code).toBe("not_found");
    // The CLI says so in one line, exit 1.
    using home = tempDir();
    const cli = await runZ(["append", "--session", "fill", "--data-dir", dataDir, "z".repeat(100_000)], { home: home.path });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain("disk is full");

    // Space comes back: the same store takes writes again, and all is intact.
    resize("64m");
    const after = await m.append({ session: "fill", entries: [{ role: "note", content: "after the disk was freed" }] });
    expect(after.entries[0]!.duplicate).toBe(false);
    expect((await m.read({ session: "fill", limit: 1000 })).turns.length).toBe(acked.length + 1);
    expect((await store.check({ full: true })).ok).toBe(true);
    store.close();
    const again = openSqliteStore(dataDir);
    expect((await again.memory("local").read({ session: "fill", limit: 1000 })).turns.length).toBe(acked.length + 1);
    again.close();
  });
});
