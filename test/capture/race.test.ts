/**
 * Overlapping hooks and hooks killed mid-run (DESIGN.md 7.2): the cursor
 * commits with the appends it covers and is re-read under the write lock,
 * so every line ends up stored exactly once, in order.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { seeded } from "../seed.ts";
import {
  appendLines,
  claudeLayout,
  conversation,
  expectedKeys,
  keysOf,
  logLines,
  onlyCaptureSession,
  readSession,
  runHook,
  runJson,
  spawnHook,
  writeTranscript,
  ZERODB,
} from "./_fixtures.ts";

const SID = "7a1d0c3e-0000-4000-8000-000000000002";

describe("capture under concurrency and crashes", () => {
  test("hooks racing on one session never append a line twice", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const c = conversation(SID, L.cwd);
    const contents: string[] = [];
    for (let round = 0; round < 15; round++) {
      const batch = Array.from({ length: 5 + (round % 4) * 20 }, (_, i) => c.user(`race ${round}.${i}`));
      appendLines(L.transcript(SID), batch);
      contents.push(...batch.map((_, i) => `race ${round}.${i}`));
      // Claude Code runs matching hooks in parallel: two (here up to four) capture hooks of one session overlap.
      const procs = ["Stop", "SubagentStop", "UserPromptSubmit", "PreCompact"].slice(0, 2 + (round % 3)).map((e) => spawnHook(L, e, SID));
      expect(await Promise.all(procs.map((p) => p.exited))).toEqual(procs.map(() => 0));
    }
    // Catch up whatever the budget of the racing runs left.
    for (let i = 0; i < 10; i++) await runHook(L, "Stop", SID);
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(keysOf(turns)).toEqual({ keys: expectedKeys(SID, contents.length), duplicates: [] });
    expect(turns.map((t) => t.content)).toEqual(contents);
    expect(await logLines(L.home)).toEqual([]);
  }, 120_000);

  test(
    "50 hooks killed with SIGKILL at random points, then a catch-up: no duplicate, no gap",
    seeded(async (random) => {
      using dir = tempDir();
      const L = claudeLayout(dir.path);
      // Long enough that the runs which finish before their kill (up to 350 of 64
      // entries each on a quiet machine) cannot capture all of it: the catch-up
      // always has work left.
      const total = 24_000;
      writeTranscript(L.transcript(SID), SID, L.cwd, total, "kill");
      let killed = 0;
      let _finished = 0;
      for (let i = 0; i < 400 && killed < 50; i++) {
        const proc = spawnHook(L, i % 2 ? "Stop" : "UserPromptSubmit", SID);
        // The random delay is the kill point (0 to 70 ms into a run of 64 entries), not a wait for a condition.
        await Bun.sleep(Math.floor(random() * 70));
        proc.kill("SIGKILL");
        await proc.exited;
        if (proc.signalCode === "SIGKILL") killed++;
        else _finished++;
      }
      expect(killed).toBeGreaterThanOrEqual(50);
      // The catch-up: `capture sync` reads the rest at once.
      const sync = await runJson(["capture", "sync", "--transcript", L.transcript(SID)], { home: L.home });
      expect(sync.warnings).toEqual([]);
      const turns = await readSession(L.home, await onlyCaptureSession(L.home));
      const keys = keysOf(turns);
      expect(keys.duplicates).toEqual([]);
      expect(keys.keys).toEqual(expectedKeys(SID, total));
      expect(turns.map((t) => t.content)).toEqual(Array.from({ length: total }, (_, i) => `kill ${i} ${i % 2 === 0 ? "question" : "answer"}`));
      // The killed runs left work behind for the catch-up.
      expect(sync.appended).toBeGreaterThan(0);
      const status = await runJson(["capture", "status"], { home: L.home, env: { CLAUDE_CONFIG_DIR: L.configDir } });
      expect(status.sessions).toEqual([
        {
          source: SID,
          harness: "claude-code",
          capture_session: await onlyCaptureSession(L.home),
          transcript: L.transcript(SID),
          lines_captured: total,
          lines_behind: 0,
        },
      ]);
    }),
    180_000,
  );
  test("capture syncs racing each other and hooks on a long transcript, one killed mid-run: every line once", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    // Several sync batches (1,024 entries each): each sync reads the next batch ahead while it commits, and
    // the other sync's commits keep moving the cursor under it (its read-ahead must then be read again).
    const total = 9_000;
    writeTranscript(L.transcript(SID), SID, L.cwd, total, "sync");
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: L.home, ZERODB_HOME: join(L.home, "zerodb"), CLAUDE_CONFIG_DIR: L.configDir };
    const sync = () => Bun.spawn([ZERODB, "capture", "sync", "--json"], { cwd: L.cwd, env, stdout: "pipe", stderr: "pipe" });
    // The first run makes the store (and the capture session), so the racers do not race to create them.
    expect((await runHook(L, "Stop", SID)).code).toBe(0);
    const killed = sync();
    const racers = [sync(), sync(), spawnHook(L, "Stop", SID), spawnHook(L, "UserPromptSubmit", SID)];
    // Killed once it has committed something (or finished): a kill between commits or mid-transaction.
    for (let i = 0; i < 200 && (await runJson(["capture", "status"], { home: L.home, env: { CLAUDE_CONFIG_DIR: L.configDir } }))[0]?.lines_captured < 1100; i++)
      await Bun.sleep(20);
    killed.kill("SIGKILL");
    await killed.exited;
    expect(await Promise.all(racers.map((p) => p.exited))).toEqual(racers.map(() => 0));
    const last = await runJson(["capture", "sync"], { home: L.home, env: { CLAUDE_CONFIG_DIR: L.configDir } });
    expect(last.warnings).toEqual([]);
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(keysOf(turns)).toEqual({ keys: expectedKeys(SID, total), duplicates: [] });
    expect(turns.map((t) => t.content)).toEqual(Array.from({ length: total }, (_, i) => `sync ${i} ${i % 2 === 0 ? "question" : "answer"}`));
    expect(await logLines(L.home)).toEqual([]);
  }, 120_000);
});
