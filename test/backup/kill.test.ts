/**
 * Issue 20: a backup taken while 4 processes write restores exactly the
 * records at or below its snapshot's last LSN; a restore (of a backup and
 * an increment) killed with SIGKILL leaves no store at the target, only
 * its temp dir beside it.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ZERODB, ZERODB_SRC, runJson, tempDir } from "../helpers.ts";
import { records } from "./_store.ts";

const WRITER = ZERODB_SRC.replace(/src\/main\.ts$/, "test/backup/writer.ts");

test("a backup taken while 4 processes write restores exactly the records up to its snapshot", async () => {
  using home = tempDir();
  const env = { home: home.path };
  const src = join(home.path, "src");
  await runJson(["append", "--session", "start", "first", "--data-dir", src], env);
  const writers = [0, 1, 2, 3].map((i) => Bun.spawn(["bun", WRITER, src, `p${i}`], { stdout: "pipe", stderr: "inherit" }));
  const acked: number[][] = writers.map(() => []);
  const readers = writers.map(async (w, i) => {
    const dec = new TextDecoder();
    for await (const chunk of w.stdout) for (const l of dec.decode(chunk).split("\n")) if (l) acked[i]!.push(Number(l));
  });
  while (acked.some((a) => a.length < 5)) await Bun.sleep(1);
  const ackedBefore = Math.max(...acked.flat());
  const file = join(home.path, "b.zdb");
  const b = await runJson(["backup", "--out", file, "--data-dir", src], env);
  for (const w of writers) w.kill(9);
  await Promise.all([...writers.map((w) => w.exited), ...readers]);
  expect(b.last_lsn).toBeGreaterThanOrEqual(ackedBefore);
  const dst = join(home.path, "dst");
  await runJson(["restore", file, "--data-dir", dst], env);
  const all = await records(src, env);
  expect(all.length).toBeGreaterThan(b.last_lsn - 1);
  expect(await records(dst, env)).toEqual(all.filter((r) => r.lsn <= b.last_lsn));
}, 60_000);

test("a restore of a backup and its increment killed with SIGKILL at random points leaves nothing at the target, or the whole store; the next restore removes its temp dir", async () => {
  using home = tempDir();
  const env = { home: home.path };
  const src = join(home.path, "src");
  for (let i = 0; i < 30; i++) await runJson(["append", "--session", `s${i % 3}`, `entry ${i} ${"x".repeat(2000)}`, "--data-dir", src], env);
  const full = join(home.path, "b.zdb");
  await runJson(["backup", "--out", full, "--data-dir", src], env);
  for (let i = 30; i < 40; i++) await runJson(["append", "--session", `s${i % 3}`, `entry ${i} ${"x".repeat(2000)}`, "--data-dir", src], env);
  await runJson(["forget", "--session", "s0", "--data-dir", src], env);
  const inc = join(home.path, "i.zdb");
  await runJson(["backup", "--since", full, "--out", inc, "--data-dir", src], env);
  const want = await records(src, env);
  const dst = join(home.path, "dst");
  const temps = () => readdirSync(home.path).filter((n) => n.startsWith(".dst.restore-"));
  for (let round = 0; round < 10; round++) {
    const p = Bun.spawn([ZERODB, "restore", full, inc, "--data-dir", dst], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home.path, ZERODB_HOME: join(home.path, "zerodb") },
      stdout: "ignore",
      stderr: "ignore",
    });
    await Bun.sleep(Math.floor(Math.random() * 60));
    p.kill(9);
    await p.exited;
    // The whole store at the target, or nothing; a killed restore leaves at most its temp dir beside it.
    if (existsSync(dst)) {
      expect(await records(dst, env)).toEqual(want);
      rmSync(dst, { recursive: true });
    }
    expect(temps().length).toBeLessThanOrEqual(1);
  }
  // The next restore removes what killed ones left, then succeeds.
  await runJson(["restore", full, inc, "--data-dir", dst], env);
  expect(temps()).toEqual([]);
  expect(await records(dst, env)).toEqual(want);
}, 60_000);
