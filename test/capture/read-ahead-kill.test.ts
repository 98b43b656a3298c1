/**
 * Capture runs reading ahead in the worker (hashes, index text and row
 * checksums computed there, rows written several to a statement), killed
 * with SIGKILL at random points: after a last run, every line of the
 * transcript is stored exactly once, in order, and every row passes its
 * checksum (DESIGN.md 7.2, I2).
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../src/store/index.ts";
import { tempDir } from "../helpers.ts";
import { seeded } from "../seed.ts";
import { claudeLayout, expectedKeys, jsonl, keysOf, writeTranscript } from "./_fixtures.ts";

const SID = "7a1d0c3e-0000-4000-8000-0000000000b7";
const RUN = new URL("./_ahead-run.ts", import.meta.url).pathname;

describe("read-ahead runs killed mid-run", () => {
  test(
    "runs killed with SIGKILL at random points, then one to the end: every line once, in order",
    seeded(async (random) => {
      using dir = tempDir();
      const L = claudeLayout(dir.path);
      // The transcript grows before every run, as a live session's does, so each run has lines to store
      // and a kill can land in its work (on a quiet machine a run of what is left ends before the kill).
      const ROUNDS = 40;
      const GROWTH = 1_500;
      const lines = writeTranscript(L.transcript(SID), SID, L.cwd, 12_000 + (ROUNDS + 1) * GROWTH, "ahead");
      let total = 12_000;
      writeFileSync(L.transcript(SID), lines.slice(0, total).map(jsonl).join(""));
      const grow = () => {
        appendFileSync(
          L.transcript(SID),
          lines
            .slice(total, total + GROWTH)
            .map(jsonl)
            .join(""),
        );
        total += GROWTH;
      };
      const dataDir = join(dir.path, "data");
      const run = () => Bun.spawn([process.execPath, RUN, L.transcript(SID), SID, dataDir], { stdout: "pipe", stderr: "pipe" });
      // The store is made first, so no kill lands in its creation.
      (await openStore({ dataDir })).close();
      let killed = 0;
      // Kill points are drawn from [0, window): a run that ended before its kill (a fast machine, a quiet
      // minute) narrows the window, so the kills land in the runs' work whatever the machine's speed.
      let window = 600;
      for (let i = 0; i < ROUNDS && killed < 15; i++) {
        if (i > 0) grow();
        const proc = run();
        // The random delay is the kill point (start-up included), not a wait for a condition.
        await Bun.sleep(Math.floor(random() * window));
        proc.kill("SIGKILL");
        await proc.exited;
        if (proc.signalCode === "SIGKILL") killed++;
        else window = Math.max(30, Math.floor(window * 0.6));
      }
      expect(killed).toBeGreaterThanOrEqual(10);
      grow();
      const last = run();
      const [code, out] = await Promise.all([last.exited, new Response(last.stdout).text()]);
      expect(code).toBe(0);
      const result = JSON.parse(out) as { appended: number; skipped: number; failed: boolean; warnings: string[] };
      expect(result).toMatchObject({ failed: false, warnings: [] });
      // The killed runs stored part of it, and left the rest to the last one.
      expect(result.appended).toBeGreaterThan(0);
      expect(result.appended).toBeLessThan(total);
      const store = await openStore({ dataDir });
      try {
        const m = store.memory("local");
        const turns = [];
        for (let after = 0; ; ) {
          const page = await m.read({ session: "app-00000000/kill", after, limit: 1000 });
          turns.push(...page.turns);
          if (page.next === null) break;
          after = page.next;
        }
        expect(keysOf(turns)).toEqual({ keys: expectedKeys(SID, total), duplicates: [] });
        expect(turns.map((t) => t.content)).toEqual(Array.from({ length: total }, (_, i) => `ahead ${i} ${i % 2 === 0 ? "question" : "answer"}`));
        expect(await store.check({ full: true })).toMatchObject({ ok: true });
      } finally {
        store.close();
      }
    }),
    180_000,
  );
});
