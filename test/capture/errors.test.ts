/**
 * A hook never blocks or breaks the harness (DESIGN.md 7.2): on any error it
 * exits 0 (never 2, which would erase the user's prompt), prints nothing,
 * writes one line to capture.log, and leaves the cursor where it was.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import {
  claudeLayout,
  conversation,
  expectedKeys,
  hookInput,
  jsonl,
  keysOf,
  logLines,
  onlyCaptureSession,
  readSession,
  runHook,
  runZ,
  writeTranscript,
} from "./_fixtures.ts";

const SID = "e0e0e0e0-0000-4000-8000-000000000009";

describe("hook failures", () => {
  test("malformed hook input: exit 0, nothing on stdout, one line in capture.log each", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const inputs = [
      "",
      "not json at all AKIAZQ3XK7PLM2RT9WVB",
      "[1, 2, 3]",
      JSON.stringify({ session_id: SID, hook_event_name: "Stop" }),
      JSON.stringify({ session_id: 42, transcript_path: L.transcript(SID), cwd: L.cwd, hook_event_name: "Stop" }),
      "x".repeat(2 * 1024 * 1024),
    ];
    for (const [i, stdin] of inputs.entries()) {
      const r = await runZ(["hook", "claude-code"], { home: L.home, stdin, cwd: L.cwd });
      expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
      expect((await logLines(L.home)).length).toBe(i + 1);
    }
    const log = await logLines(L.home);
    expect(log[1]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z hook: invalid_input: stdin: the hook input is not JSON$/);
    expect(log[3]).toContain("hook input.transcript_path: required");
    expect(log.join("\n")).not.toContain("AKIAZQ3XK7PLM2RT9WVB");
  });

  test("a missing transcript: exit 0, one line naming it (none before the first prompt, when Claude Code has not created it yet)", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    for (const early of ["SessionStart", "UserPromptSubmit", "SessionEnd"]) expect(await runHook(L, early, SID)).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await logLines(L.home)).toEqual([]);
    expect(await runHook(L, "Stop", SID)).toEqual({ code: 0, stdout: "", stderr: "" });
    const log = await logLines(L.home);
    expect(log.length).toBe(1);
    expect(log[0]).toContain(`Stop session=${SID}: transcript not found: ${L.transcript(SID)}`);
  });

  test("a broken line in the middle: exit 0, one line in capture.log, every good line captured and the broken one kept as a note", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const c = conversation(SID, L.cwd);
    const path = L.transcript(SID);
    writeFileSync(path, jsonl(c.user("first")) + jsonl(c.user("second")));
    appendFileSync(path, '{"type":"assistant","message":{"content":[{"type":"te\n');
    appendFileSync(path, Buffer.from([0xff, 0xfe, 0x7b, 0x0a]));
    appendFileSync(path, jsonl(c.user("after the break")) + jsonl(c.assistant([{ type: "text", text: "still here" }])));
    expect(await runHook(L, "Stop", SID)).toEqual({ code: 0, stdout: "", stderr: "" });
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(keysOf(turns)).toEqual({ keys: expectedKeys(SID, 6), duplicates: [] });
    expect(turns.map((t) => t.content)).toEqual([
      "first",
      "second",
      '{"type":"assistant","message":{"content":[{"type":"te',
      "\uFFFD\uFFFD{",
      "after the break",
      "still here",
    ]);
    expect(turns[2]!.meta).toEqual({ type: "unparsable", position: 2, kind: "system" });
    const log = await logLines(L.home);
    expect(log.length).toBe(1);
    expect(log[0]).toContain(`line 2 of ${path} is not JSON: kept as a note; line 3 of ${path} is not JSON: kept as a note`);
    // Reported once: the next run has nothing new and nothing to say.
    expect(await runHook(L, "Stop", SID)).toEqual({ code: 0, stdout: "", stderr: "" });
    expect((await logLines(L.home)).length).toBe(1);
  });

  test("a store that cannot be opened: exit 0, one line, and the cursor untouched for the next run", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    writeTranscript(L.transcript(SID), SID, L.cwd, 5);
    mkdirSync(join(L.home, "zerodb"), { recursive: true });
    // The data dir is a file: nothing can be stored.
    writeFileSync(join(L.home, "zerodb", "data"), "not a directory");
    expect(await runHook(L, "Stop", SID)).toEqual({ code: 0, stdout: "", stderr: "" });
    const log = await logLines(L.home);
    expect(log.length).toBe(1);
    expect(log[0]).toMatch(/Stop session=e0e0e0e0-0000-4000-8000-000000000009: (unavailable|invalid_input|internal): .*zerodb\/data/);
    await Bun.file(join(L.home, "zerodb", "data")).delete();
    expect((await runHook(L, "Stop", SID)).code).toBe(0);
    expect(keysOf(await readSession(L.home, await onlyCaptureSession(L.home))).keys).toEqual(expectedKeys(SID, 5));
  });

  test("a bad config file: exit 0, one line in the default home's log", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    writeTranscript(L.transcript(SID), SID, L.cwd, 2);
    mkdirSync(join(L.home, "zerodb"), { recursive: true });
    writeFileSync(join(L.home, "zerodb", "config.json"), "{ not json");
    const r = await runZ(["hook", "claude-code"], {
      home: L.home,
      cwd: L.cwd,
      stdin: hookInput("UserPromptSubmit", { sessionId: SID, transcript: L.transcript(SID), cwd: L.cwd, prompt: "hi" }),
    });
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
    const log = await logLines(L.home);
    expect(log.length).toBe(1);
    expect(log[0]).toContain("is not valid JSON");
  });
});
