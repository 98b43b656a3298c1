/**
 * A Codex command run by the unified exec tool, its output split over two
 * polls (test/fixtures/exec-store's rollout, made up: see its make.ts),
 * captured by `capture sync`: a search whose words fall on both sides of the
 * split finds the command's exec_command_end turn, which holds the command
 * and its whole output, and a replay of the rollout stores nothing new (I3).
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { captureSession, projectSession } from "../../src/project.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { CWD, ROLLOUT, THREAD } from "../fixtures/exec-store/make.ts";
import { tempDir } from "../helpers.ts";
import { codexLayout, replayRollout } from "./_codex.ts";
import { readSession, runJson } from "./_fixtures.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "exec-store", ROLLOUT);
const SESSION = captureSession(projectSession(CWD), THREAD);

describe("a unified exec command split over two polls", () => {
  test("capture sync stores its end as the tool result of its call; words of both polls find it, first; a replay stores nothing new", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    copyFileSync(FIXTURE, L.rollout(THREAD));
    const env = { CODEX_HOME: L.codexHome, CLAUDE_CONFIG_DIR: join(dir.path, "no-claude") };
    expect(await runJson(["capture", "sync"], { home: dir.path, env })).toMatchObject({ transcripts: 1, appended: 22, skipped: 0, warnings: [] });
    const turns = await readSession(dir.path, SESSION);
    const at = (position: number) => turns.find((t: any) => t.meta.position === position)!;
    // The call, its two polls' outputs, and its end.
    const [call, first, second, end] = [at(4), at(5), at(8), at(7)] as const;
    expect([call, first, second, end].map((t: any) => [t.role, t.meta.kind, t.meta.noise ?? null, t.meta.tool_use_ids])).toEqual([
      ["assistant", "tool_call", null, ["call_run1"]],
      ["tool", "tool_result", null, ["call_run1"]],
      ["tool", "tool_result", null, ["call_poll1"]],
      ["tool", "tool_result", null, ["call_run1"]],
    ]);
    expect(end.content).toStartWith("[tool_result]\n$ npx vitest --run src/ledger-reconcile.test.ts\n\n> ledger@1.0.0 test\n");
    expect(end.content).toEndWith("      Tests  12 passed (12)\n   Duration  3.12s\n");
    // The file's name is in the first poll's output, the count in the second's: only the end holds every word.
    const { hits } = await runJson(["search", "ledger-reconcile tests 12 passed"], { home: dir.path });
    expect(hits[0]).toMatchObject({ lsn: end.lsn, session: SESSION, role: "tool" });
    const most = Math.max(...hits.map((h: any) => h.matched.length));
    expect(hits.filter((h: any) => h.matched.length === most).map((h: any) => h.lsn)).toEqual([end.lsn]);
    for (const poll of [first, second]) expect(hits.find((h: any) => h.lsn === poll.lsn)?.matched.length ?? 0).toBeLessThan(most);
    // The classic shell tool's end stays bookkeeping: its one output already holds all of it.
    expect([at(17).role, at(17).meta.noise]).toEqual(["note", "bookkeeping"]);

    expect((await runJson(["capture", "sync"], { home: dir.path, env })).appended).toBe(0);
    const store = openSqliteStore(join(dir.path, "zerodb", "data"));
    try {
      expect(await replayRollout(store.memory("local"), { path: L.rollout(THREAD), thread: THREAD, session: SESSION })).toEqual({ entries: 22, fresh: 0 });
    } finally {
      store.close();
    }
  }, 60_000);
});
