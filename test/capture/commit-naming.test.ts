/**
 * A captured entry is checked once, by the engine's batch schema at commit
 * (DESIGN.md I6); a refusal names the transcript line it came from, and the
 * cursor stays where it was.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { localSink } from "../../src/capture/local-sink.ts";
import { captureSources } from "../../src/capture/run.ts";
import { mainSource } from "../../src/capture/sources.ts";
import { ZeroDbError } from "../../src/errors.ts";
import { openStore } from "../../src/store/index.ts";
import { tempDir } from "../helpers.ts";

const SID = "e0e0e0e0-0000-4000-8000-00000000c0de";
const line = (type: string, text: string) => `${JSON.stringify({ type, sessionId: SID, message: { role: type, content: text } })}\n`;

test("an entry the engine refuses is named by its transcript line, and nothing of the batch is written", async () => {
  using dir = tempDir();
  const path = join(dir.path, `${SID}.jsonl`);
  writeFileSync(path, line("user", "first") + line("user", "second") + line("user", "third"));
  const store = await openStore({ dataDir: join(dir.path, "data") });
  const real = localSink(store, "local");
  // The sink passes a batch whose second entry a renderer bug has broken (a role the schema does not know).
  const sink = {
    ...real,
    commit: (batch: Parameters<typeof real.commit>[0]) =>
      real.commit({ ...batch, entries: batch.entries.map((e, i) => (i === 1 ? { ...e, entry: { ...e.entry, role: "robot" as "user" } } : e)) }),
  };
  const run = () =>
    captureSources({ sink, sources: [mainSource(path, SID)], session: "proj-00000000/s", redact: true, budget: { entries: 100, bytes: 1 << 20 } });
  const err = await run().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ZeroDbError);
  expect((err as ZeroDbError).code).toBe("invalid_input");
  expect((err as ZeroDbError).field).toBe("line 1.role");
  expect((err as ZeroDbError).message).toMatch(/^line 1\.role: /);
  expect(await real.cursor(SID)).toBeUndefined();
  expect((await real.memory.stats()).turns.count).toBe(0);
  // The same transcript through the real sink captures every line.
  const ok = await captureSources({
    sink: real,
    sources: [mainSource(path, SID)],
    session: "proj-00000000/s",
    redact: true,
    budget: { entries: 100, bytes: 1 << 20 },
  });
  expect(ok.appended).toBe(3);
  real.close();
  store.close();
});
