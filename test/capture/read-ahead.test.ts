/**
 * capture sync's read-ahead worker (src/capture/read-ahead.ts): whatever
 * becomes of the worker, a run stores exactly what a run without it does,
 * the batches it could not read ahead being read on the main thread.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { localSink } from "../../src/capture/local-sink.ts";
import { ReadAhead } from "../../src/capture/read-ahead.ts";
import { captureSources } from "../../src/capture/run.ts";
import { mainSource } from "../../src/capture/sources.ts";
import { openStore } from "../../src/store/index.ts";
import type { Turn } from "../../src/schema/results.ts";
import { tempDir } from "../helpers.ts";
import { claudeLayout, conversation, appendLines } from "./_fixtures.ts";

const SID = "7a1d0c3e-0000-4000-8000-0000000000a1";

/** Captures the transcript into a fresh store (batches of 100, so a run has many), with `ahead` or without a worker; returns the turns. */
async function capture(transcript: string, dataDir: string, ahead?: ReadAhead): Promise<{ turns: Omit<Turn, "ts">[]; warnings: string[] }> {
  const store = await openStore({ dataDir });
  try {
    const sink = localSink(store, "local");
    // As capture sync does: the worker computes each entry's row checksum for this store (a wrong one reads as corrupt).
    if (ahead) ahead.storeId = sink.storeId;
    const r = await captureSources({
      sink,
      sources: [mainSource(transcript, SID)],
      session: "app-00000000/ahead",
      redact: true,
      budget: { entries: Infinity, bytes: Infinity, batchEntries: 100 },
      ...(ahead ? { readAhead: ahead } : {}),
    });
    const turns: Omit<Turn, "ts">[] = [];
    for (let after = 0; ; ) {
      const page = await store.memory("local").read({ session: "app-00000000/ahead", after, limit: 1000 });
      for (const { ts: _ts, ...t } of page.turns) turns.push(t);
      if (page.next === null) break;
      after = page.next;
    }
    return { turns, warnings: r.warnings };
  } finally {
    store.close();
  }
}

describe("read-ahead worker", () => {
  const dir = tempDir();
  afterAll(() => dir[Symbol.dispose]());
  const L = claudeLayout(dir.path);
  const c = conversation(SID, L.cwd);
  const lines: unknown[] = [];
  for (let i = 0; i < 600; i++) {
    // Enough bytes that every batch goes to the worker (a transcript with little new is read on the main thread).
    lines.push(c.user(`question ${i}: ${"uploadRetryCount ".repeat(40)} token ghp_${"a1B2c3D4e5".repeat(3)}123456`));
    lines.push(c.assistant([{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: `npm test ${i}` } }]));
    lines.push(c.toolResult(`toolu_${i}`, "ok\n".repeat(200)));
  }
  appendLines(L.transcript(SID), lines);
  // A line that is not JSON: a warning, from whichever thread read it.
  appendFileSync(L.transcript(SID), "not json {\n");
  let expected: Awaited<ReturnType<typeof capture>>;

  test("reads ahead and stores exactly what a run without a worker stores", async () => {
    expected = await capture(L.transcript(SID), join(dir.path, "plain"));
    expect(expected.turns.length).toBe(1801);
    expect(expected.warnings.length).toBe(1);
    using ahead = new ReadAhead();
    expect(await capture(L.transcript(SID), join(dir.path, "ahead"), ahead)).toEqual(expected);
    expect(ahead.failed).toBe(false);
    expect(ahead.storeId).toMatch(/^[0-9a-f-]{20,}$/);
    const store = await openStore({ dataDir: join(dir.path, "ahead") });
    try {
      expect(await store.check({ full: true })).toMatchObject({ ok: true });
    } finally {
      store.close();
    }
  });

  test("a worker that cannot start: every batch is read on the main thread", async () => {
    using ahead = new ReadAhead(join(dir.path, "no-such-worker.ts"));
    expect(await capture(L.transcript(SID), join(dir.path, "nostart"), ahead)).toEqual(expected);
    expect(ahead.failed).toBe(true);
  });

  test("a worker that dies mid-run: the rest is read on the main thread", async () => {
    using ahead = new ReadAhead(new URL("./_dying-worker.ts", import.meta.url).href);
    expect(await capture(L.transcript(SID), join(dir.path, "dies"), ahead)).toEqual(expected);
    expect(ahead.failed).toBe(true);
  });
});
