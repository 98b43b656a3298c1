/** `zerodb capture sync` / `capture status`, and SessionEnd's bounded run with its background catch-up (DESIGN.md 7.2). */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import {
  appendLines,
  claudeLayout,
  conversation,
  expectedKeys,
  keysOf,
  logLines,
  readSession,
  runHook,
  runJson,
  runZ,
  turnCount,
  writeTranscript,
} from "./_fixtures.ts";

const S1 = "51515151-0000-4000-8000-000000000011";
const S2 = "52525252-0000-4000-8000-000000000012";
const S3 = "53535353-0000-4000-8000-000000000013";
const hash = (id: string) => new Bun.CryptoHasher("sha256").update(id).digest("hex").slice(0, 16);

describe("capture sync and status", () => {
  test("backfills every transcript under $CLAUDE_CONFIG_DIR/projects, unbounded, and status counts lines captured and behind", async () => {
    using dir = tempDir();
    const A = claudeLayout(dir.path, "alpha");
    const B = claudeLayout(dir.path, "beta");
    writeTranscript(A.transcript(S1), S1, A.cwd, 300, "alpha one");
    writeTranscript(A.transcript(S2), S2, A.cwd, 5, "alpha two");
    appendLines(A.subagent(S1, "x1"), [{ ...conversation(S1, A.cwd).user("subagent work"), isSidechain: true }]);
    writeTranscript(B.transcript(S3), S3, B.cwd, 70, "beta");
    // Only metadata so far: no line names its working directory, so its project is unknown.
    const early = "54545454-0000-4000-8000-000000000014";
    appendLines(A.transcript(early), [{ type: "queue-operation", operation: "enqueue", sessionId: early, content: "hi" }]);
    const env = { CLAUDE_CONFIG_DIR: A.configDir };
    await runHook(A, "Stop", S1);

    const before = await runJson(["capture", "status"], { home: dir.path, env });
    expect(before.sessions.map((s: any) => [s.source, s.lines_captured, s.lines_behind])).toEqual([
      [S1, 64, 236],
      [`${S1}/agent-x1.jsonl`, 0, 1],
      [S2, 0, 5],
      [early, 0, 1],
      [S3, 0, 70],
    ]);
    const sync = await runJson(["capture", "sync"], { home: dir.path, env });
    expect(sync).toMatchObject({ transcripts: 3, appended: 236 + 1 + 5 + 70, skipped: 0 });
    expect(sync.warnings).toEqual([`${A.transcript(early)}: no line names a working directory yet, so its project is unknown: left for later`]);
    const after = await runJson(["capture", "status"], { home: dir.path, env });
    expect(after.sessions.map((s: any) => [s.source, s.lines_captured, s.lines_behind])).toEqual([
      [S1, 300, 0],
      [`${S1}/agent-x1.jsonl`, 1, 0],
      [S2, 5, 0],
      [early, 0, 1],
      [S3, 70, 0],
    ]);
    // Sessions come from the working directory recorded in the lines, the same the hook derives from its cwd.
    const s1 = after.sessions.find((s: any) => s.source === S1).capture_session;
    const s3 = after.sessions.find((s: any) => s.source === S3).capture_session;
    expect(s1).toEndWith(`/${hash(S1)}`);
    expect(s1.split("/")[0]).toStartWith("alpha-");
    expect(s3.split("/")[0]).toStartWith("beta-");
    expect(keysOf(await readSession(dir.path, s3))).toEqual({ keys: expectedKeys(S3, 70), duplicates: [] });
    expect(await turnCount(dir.path, s1)).toBe(301);
    // Nothing left: a second sync appends nothing.
    expect(await runJson(["capture", "sync"], { home: dir.path, env })).toMatchObject({ appended: 0 });
    const human = await runZ(["capture", "status"], { home: dir.path, env });
    expect(human.code).toBe(0);
    // Issue 17, item 9: each row names the zerodb session (as `sessions` shows it) beside Claude Code's id.
    const rows = human.stdout.trimEnd().split("\n");
    expect(rows[0]!.split(/ {2,}/)).toEqual(["zerodb session", "harness session", "captured", "behind"]);
    expect(rows.slice(1, -1).map((l) => l.split(/ {2,}/))).toEqual([
      [s1, S1, "300", "0"],
      [s1, `${S1}/agent-x1.jsonl`, "1", "0"],
      [after.sessions[2].capture_session, S2, "5", "0"],
      ["(not captured yet)", early, "0", "1"],
      [s3, S3, "70", "0"],
    ]);
    expect((await runJson(["sessions"], { home: dir.path })).sessions.map((s: any) => s.name)).toContain(s1);
    expect(rows.at(-1)).toBe("1 line(s) behind: run `zerodb capture sync`");
    expect(human.stderr).toBe("");
    // --verbose adds where each transcript is.
    const verbose = await runZ(["capture", "status", "--verbose"], { home: dir.path, env });
    expect(verbose.stdout.split("\n")[1]!.split(/ {2,}/)).toEqual([s1, S1, "300", "0", A.transcript(S1)]);
  });

  test("without CLAUDE_CONFIG_DIR, transcripts are found under ~/.claude/projects", async () => {
    using dir = tempDir();
    const cwd = join(dir.path, "proj");
    mkdirSync(cwd);
    const projects = join(dir.path, ".claude", "projects", "-proj");
    mkdirSync(projects, { recursive: true });
    writeTranscript(join(projects, `${S1}.jsonl`), S1, cwd, 3);
    const sync = await runJson(["capture", "sync"], { home: dir.path });
    expect(sync).toMatchObject({ transcripts: 1, appended: 3 });
  });

  test("SessionEnd does a bounded run and leaves the rest to a detached catch-up that finishes the transcript", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    writeTranscript(L.transcript(S1), S1, L.cwd, 500, "ending");
    const r = await runHook(L, "SessionEnd", S1, { extra: { reason: "prompt_input_exit" } });
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
    const session = `${(await runJson(["sessions"], { home: L.home })).sessions[0].name}`;
    expect(session).toEndWith(`/${hash(S1)}`);
    // The hook itself stored at most 64; the background `capture sync` it started stores the rest.
    let count = 0;
    for (let i = 0; i < 600 && count < 500; i++) {
      count = await turnCount(L.home, session);
      if (count < 500) await Bun.sleep(50); // polling for the background process to finish
    }
    expect(count).toBe(500);
    expect(keysOf(await readSession(L.home, session))).toEqual({ keys: expectedKeys(S1, 500), duplicates: [] });
    expect(await logLines(L.home)).toEqual([]);
  }, 60_000);
});
