/**
 * Issue 20: a restore onto a full disk fails with a clear error and leaves
 * nothing behind. Needs a small tmpfs, so it runs only where mount works
 * (root on Linux); elsewhere it says it skipped.
 */
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { runJson, runZ, tempDir } from "../helpers.ts";

test("a restore onto a full disk is refused with a clear error and leaves nothing behind", async () => {
  using home = tempDir();
  const env = { home: home.path };
  const src = join(home.path, "src");
  for (let i = 0; i < 40; i++) await runJson(["append", "--session", "s", `entry ${i} ${"x".repeat(3000)}`, "--data-dir", src], env);
  const file = join(home.path, "b.zdb");
  await runJson(["backup", "--out", file, "--data-dir", src], env);
  const small = join(home.path, "small");
  mkdirSync(small, { mode: 0o700 });
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", small], { stderr: "pipe" });
  if (mount.exitCode !== 0) return console.warn("skipping: cannot mount a small tmpfs here");
  try {
    chmodSync(small, 0o700);
    const r = await runZ(["restore", file, "--data-dir", join(small, "dst")], env);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: "zerodb: the disk is full: free some space and retry\n" });
    expect(readdirSync(small)).toEqual([]);
  } finally {
    Bun.spawnSync(["umount", small]);
  }
});
