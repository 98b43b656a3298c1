/**
 * Entries over the turn limit through the binary (DESIGN.md 7.2): a 10 MiB
 * and a 100 MiB transcript line are stored as chunks, each exactly once,
 * even when runs stop or are killed between chunks.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { tempDir } from "../helpers.ts";
import { claudeLayout, conversation, jsonl, keysOf, onlyCaptureSession, readSession, runHook, spawnHook, turnCount } from "./_fixtures.ts";

const SID = "b16b16b1-0000-4000-8000-000000000003";
const MiB = 1024 * 1024;

/** Kills a hook at a random point of its run; whether it had committed by then does not matter. */
async function killMidRun(L: ReturnType<typeof claudeLayout>, delayMs: number): Promise<void> {
  const proc = spawnHook(L, "Stop", SID);
  // The delay is the kill point, not a wait for a condition.
  await Bun.sleep(delayMs);
  proc.kill("SIGKILL");
  await proc.exited;
}

/** Runs hooks until a run adds nothing (bounded). */
async function catchUp(L: ReturnType<typeof claudeLayout>, maxRuns: number): Promise<number> {
  let runs = 0;
  let before = -1;
  for (; runs < maxRuns; runs++) {
    expect((await runHook(L, "Stop", SID)).code).toBe(0);
    const now = await turnCount(L.home, await onlyCaptureSession(L.home));
    if (now === before) break;
    before = now;
  }
  return runs;
}

describe("entries over the turn limit", () => {
  test("a 10 MiB entry is stored as 4 chunks, resumed at the first missing chunk after a stop and kills", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const c = conversation(SID, L.cwd);
    const unit = 'ten mebibytes é 中 \u0007 "quoted"\n';
    const text = unit.repeat(Math.ceil((10 * MiB) / Buffer.byteLength(unit))).slice(0, 10 * MiB);
    writeFileSync(L.transcript(SID), jsonl(c.user(text)) + jsonl(c.assistant([{ type: "text", text: "after the big one" }])));
    // Two entries per run: the first run stops between chunks 1 and 2, as a killed run would.
    await Bun.write(`${L.home}/zerodb/config.json`, JSON.stringify({ capture: { max_entries_per_run: 2 } }));
    expect((await runHook(L, "Stop", SID)).code).toBe(0);
    const first = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(first.map((t) => t.idem_key)).toEqual([`${SID}:0:0`, `${SID}:0:1`]);
    for (const delay of [5, 25, 45, 65]) await killMidRun(L, delay);
    await catchUp(L, 10);
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(keysOf(turns)).toEqual({ keys: [0, 1, 2, 3].map((k) => `${SID}:0:${k}`).concat(`${SID}:1:0`), duplicates: [] });
    const chunks = turns.slice(0, 4);
    expect(chunks.map((t) => t.content).join("")).toBe(text);
    expect(chunks.map((t) => [t.meta.chunk, t.meta.chunks, t.meta.truncated])).toEqual([0, 1, 2, 3].map((k) => [k, 4, undefined]));
    for (const t of chunks) expect(Buffer.byteLength(t.content)).toBeLessThanOrEqual(3 * MiB);
    expect(turns[4]!.content).toBe("after the big one");
  }, 120_000);

  test("a 100 MiB tool result is stored as 34 chunks over bounded runs, a run killed between chunks resuming where it stopped", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const c = conversation(SID, L.cwd);
    const unit = `${"0123456789abcdef".repeat(4)}\n`;
    const body = unit.repeat(Math.ceil((100 * MiB) / unit.length)).slice(0, 100 * MiB);
    writeFileSync(L.transcript(SID), jsonl(c.assistant([{ type: "tool_use", id: "t1", name: "Bash", input: { command: "cat big.log" } }])));
    appendFileSync(L.transcript(SID), jsonl(c.toolResult("t1", body)));
    // One run stores at most 32 MiB: ten 3 MiB chunks (and the tool_use line before them).
    expect((await runHook(L, "Stop", SID)).code).toBe(0);
    expect(await turnCount(L.home, await onlyCaptureSession(L.home))).toBe(11);
    await killMidRun(L, 150);
    await killMidRun(L, 700);
    const runs = await catchUp(L, 8);
    expect(runs).toBeLessThanOrEqual(5);
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    const expected = `[tool_result]\n${body}`;
    const n = Math.ceil(Buffer.byteLength(expected) / (3 * MiB));
    expect(n).toBe(34);
    expect(keysOf(turns)).toEqual({ keys: [`${SID}:0:0`, ...Array.from({ length: n }, (_, k) => `${SID}:1:${k}`)], duplicates: [] });
    const chunks = turns.slice(1);
    expect(chunks.every((t) => t.role === "tool" && t.meta.chunks === n && t.meta.truncated === undefined)).toBe(true);
    expect(chunks.map((t) => t.meta.chunk)).toEqual(Array.from({ length: n }, (_, k) => k));
    expect(chunks.map((t) => t.content).join("") === expected).toBe(true);
  }, 240_000);
});
