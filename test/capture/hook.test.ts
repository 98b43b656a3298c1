/** `zerodb hook claude-code` end to end: the binary fed hook JSON on stdin and transcripts in Claude Code's format (DESIGN.md 7.2). */
import { describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import {
  appendLines,
  claudeLayout,
  conversation,
  expectedKeys,
  jsonl,
  keysOf,
  logLines,
  onlyCaptureSession,
  readSession,
  runHook,
  runJson,
  runZ,
  writeTranscript,
  ZERODB,
} from "./_fixtures.ts";

const SID = "5f0c1e2a-0000-4000-8000-000000000001";

describe("hook claude-code", () => {
  test("maps every kind of transcript line to a turn with its role, text and meta", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const c = conversation(SID, L.cwd);
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001", "hex");
    const lines = [
      c.queue("fix the build"),
      c.user("fix the build please"),
      c.assistant([{ type: "thinking", thinking: "look at the makefile", signature: "c2ln" }]),
      c.assistant([{ type: "text", text: "Running make." }]),
      c.assistant([{ type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "make all" } }]),
      c.toolResult("toolu_01", "make: nothing to be done"),
      c.user([
        { type: "text", text: "see this" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: png.toString("base64") } },
      ]),
      c.system("Conversation compacted", "compact_boundary"),
      c.attachment({ type: "date", date: "2026-01-01" }, "<system-reminder>Today is 2026-01-01</system-reminder>"),
      c.summary("Fixing the build"),
      { type: "file-history-snapshot", messageId: "m1", snapshot: { trackedFileBackups: {} }, isSnapshotUpdate: false },
      { type: "some-future-type", payload: { a: 1 } },
      { ...c.user("an old sidechain line"), isSidechain: true, agentId: "a77" },
    ];
    appendLines(L.transcript(SID), lines);
    const r = await runHook(L, "Stop", SID, { extra: { stop_hook_active: false, last_assistant_message: "Running make." } });
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(turns.map((t) => t.role)).toEqual([
      "note",
      "user",
      "assistant",
      "assistant",
      "assistant",
      "tool",
      "user",
      "system",
      "system",
      "note",
      "note",
      "note",
      "user",
    ]);
    expect(keysOf(turns).keys).toEqual(expectedKeys(SID, lines.length));
    const [queue, user, thinking, text, toolUse, toolResult, image, system, attachment, summary, snapshot, future, sidechain] = turns;
    expect(queue!.content).toBe(`[queue-operation] {"operation":"enqueue","sessionId":"${SID}","content":"fix the build"}`);
    expect(queue!.meta).toEqual({ type: "queue-operation", timestamp: "2026-01-01T00:00:00.000Z", position: 0, kind: "system", noise: "bookkeeping" });
    const u = lines[1] as { uuid: string; parentUuid: string | null; timestamp: string };
    expect(user!.meta).toEqual({ type: "user", uuid: u.uuid, parentUuid: u.parentUuid, timestamp: u.timestamp, position: 1, kind: "prompt" });
    // Every line says its kind; the harness's own lines are bookkeeping (DESIGN.md 11).
    expect(turns.map((t) => [t.meta.kind, t.meta.noise])).toEqual([
      ["system", "bookkeeping"],
      ["prompt", undefined],
      ["reply", undefined],
      ["reply", undefined],
      ["tool_call", undefined],
      ["tool_result", undefined],
      ["prompt", undefined],
      ["system", "bookkeeping"],
      ["system", "bookkeeping"],
      ["system", "bookkeeping"],
      ["system", "bookkeeping"],
      ["system", "bookkeeping"],
      ["prompt", undefined],
    ]);
    expect(user!.content).toBe("fix the build please");
    expect(thinking!.content).toBe("[thinking]\nlook at the makefile");
    expect(thinking!.meta.message_id).toBe("msg_1");
    expect(text!.content).toBe("Running make.");
    expect(toolUse!.content).toBe('[tool_use Bash]\n{"command":"make all"}');
    expect(toolUse!.meta).toMatchObject({ tools: ["Bash"], tool_use_ids: ["toolu_01"], message_id: "msg_3", parentUuid: (lines[3] as { uuid: string }).uuid });
    expect(toolResult!.content).toBe("[tool_result]\nmake: nothing to be done");
    expect(toolResult!.meta.tool_use_ids).toEqual(["toolu_01"]);
    expect(image!.content).toBe(`see this\n\n[image image/png, ${png.length} bytes]`);
    expect(image!.meta.images).toEqual([
      { object: `sha256:${new Bun.CryptoHasher("sha256").update(png).digest("hex")}`, type: "image/png", bytes: png.length },
    ]);
    expect(image!.content).not.toContain(png.toString("base64"));
    // The image's bytes are an object the tenant holds, under the digest the meta names.
    const objects = await runJson(["object", "list"], { home: L.home });
    expect(objects.objects).toMatchObject([{ object: image!.meta.images[0].object, size: png.length, type: "image/png" }]);
    expect(system!.content).toBe("Conversation compacted");
    expect(system!.meta.subtype).toBe("compact_boundary");
    expect(attachment!.content).toBe("<system-reminder>Today is 2026-01-01</system-reminder>");
    expect(attachment!.meta).toMatchObject({ type: "attachment", subtype: "date" });
    expect(summary!.content).toBe(`[summary] ${JSON.stringify({ summary: "Fixing the build", leafUuid: (lines[8] as { uuid: string }).uuid })}`);
    expect(snapshot!.content).toStartWith('[file-history-snapshot] {"messageId":"m1"');
    expect(future!.content).toBe('[some-future-type] {"payload":{"a":1}}');
    expect(sidechain!.meta).toMatchObject({ isSidechain: true, agent_id: "a77" });
    expect(await logLines(L.home)).toEqual([]);
  });

  test("every line is captured exactly once over many runs, a partial last line waiting for its newline", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const c = conversation(SID, L.cwd);
    const path = L.transcript(SID);
    const events = ["UserPromptSubmit", "Stop", "PreCompact", "SubagentStop", "Stop"];
    let written = 0;
    for (let round = 0; round < 12; round++) {
      const batch = Array.from({ length: 1 + ((round * 7) % 9) }, (_, i) => c.user(`round ${round} line ${i}`));
      appendLines(path, batch);
      written += batch.length;
      // Half of the next line, as Claude Code may have written it when the hook reads.
      const next = jsonl(c.assistant([{ type: "text", text: `reply of round ${round}` }]));
      appendFileSync(path, next.slice(0, 20));
      const r = await runHook(L, events[round % events.length]!, SID);
      expect(r.code).toBe(0);
      const turns = await readSession(L.home, await onlyCaptureSession(L.home));
      expect(keysOf(turns).keys).toEqual(expectedKeys(SID, written));
      appendFileSync(path, next.slice(20));
      written++;
    }
    expect(await runHook(L, "SessionEnd", SID, { extra: { reason: "other" } })).toEqual({ code: 0, stdout: "", stderr: "" });
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(keysOf(turns)).toEqual({ keys: expectedKeys(SID, written), duplicates: [] });
    expect(turns.at(-1)!.content).toBe("reply of round 11");
    expect(await logLines(L.home)).toEqual([]);
  }, 60_000);

  test("one run appends at most 64 entries; the rest catches up over later runs", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    writeTranscript(L.transcript(SID), SID, L.cwd, 150);
    const counts: number[] = [];
    for (let run = 0; run < 4; run++) {
      expect((await runHook(L, "Stop", SID)).code).toBe(0);
      counts.push((await readSession(L.home, await onlyCaptureSession(L.home))).length);
    }
    expect(counts).toEqual([64, 128, 150, 150]);
  });

  test("config capture.max_entries_per_run lowers the bound; capture.enabled false turns the hook off", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    writeTranscript(L.transcript(SID), SID, L.cwd, 10);
    const config = `${L.home}/zerodb/config.json`;
    await Bun.write(config, JSON.stringify({ capture: { max_entries_per_run: 3 } }));
    await runHook(L, "Stop", SID);
    expect((await readSession(L.home, await onlyCaptureSession(L.home))).length).toBe(3);
    await Bun.write(config, JSON.stringify({ capture: { enabled: false } }));
    expect(await runHook(L, "Stop", SID)).toEqual({ code: 0, stdout: "", stderr: "" });
    expect((await readSession(L.home, await onlyCaptureSession(L.home))).length).toBe(3);
  });

  test("subagent transcripts are captured into the parent's capture session, each with its own cursor and keys", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    writeTranscript(L.transcript(SID), SID, L.cwd, 3);
    const sub = (agent: string, n: number) => {
      const c = conversation(SID, L.cwd);
      appendLines(
        L.subagent(SID, agent),
        Array.from({ length: n }, (_, i) => ({ ...c.user(`agent ${agent} step ${i}`), isSidechain: true, agentId: agent })),
      );
    };
    sub("a1", 2);
    sub("acompact-9f", 1);
    expect(
      (await runHook(L, "SubagentStop", SID, { extra: { agent_id: "a1", agent_type: "general-purpose", agent_transcript_path: L.subagent(SID, "a1") } })).code,
    ).toBe(0);
    sub("a1", 2);
    expect((await runHook(L, "Stop", SID)).code).toBe(0);
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    const keys = keysOf(turns);
    expect(keys.duplicates).toEqual([]);
    expect(keys.keys.sort()).toEqual(
      [...expectedKeys(SID, 3), ...expectedKeys(`${SID}/agent-a1.jsonl`, 4), ...expectedKeys(`${SID}/agent-acompact-9f.jsonl`, 1)].sort(),
    );
    const agentTurns = turns.filter((t) => t.idem_key!.includes("/agent-a1.jsonl:"));
    expect(agentTurns.map((t) => t.content)).toEqual(["agent a1 step 0", "agent a1 step 1", "agent a1 step 0", "agent a1 step 1"]);
    for (const t of agentTurns) expect(t.meta).toMatchObject({ isSidechain: true, agent_id: "a1" });
  });

  test("SessionStart records the project's latest capture and hands the next session a bounded context", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const first = "aaaaaaaa-0000-4000-8000-000000000001";
    const second = "bbbbbbbb-0000-4000-8000-000000000002";
    // The transcript does not exist yet at SessionStart: that is no problem worth a log line.
    const start1 = await runHook(L, "SessionStart", first, { extra: { source: "startup" } });
    expect(start1).toEqual({ code: 0, stdout: "", stderr: "" });
    const c = conversation(first, L.cwd);
    appendLines(L.transcript(first), [
      c.user("please make the tests pass"),
      c.assistant([{ type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } }]),
      c.toolResult("t1", "x".repeat(20_000)),
      c.assistant([{ type: "text", text: "All 40 tests pass now; the flaky one was the clock." }]),
      ...Array.from({ length: 40 }, (_, i) => c.user(`filler message ${i} ${"y".repeat(400)}`)),
    ]);
    await runHook(L, "Stop", first);
    const project = (await onlyCaptureSession(L.home)).split("/")[0]!;
    const latest = await runJson(["fact", "get", `project/${project}/latest-capture`], { home: L.home });
    expect(latest.value).toMatchObject({
      session: `${project}/${(await onlyCaptureSession(L.home)).split("/")[1]}`,
      harness_session: first,
      source: "startup",
    });
    await runJson(["fact", "set", `project/${project}/build`, "run make, never npm build"], { home: L.home });

    const start2 = await runHook(L, "SessionStart", second, { extra: { source: "startup" } });
    expect(start2.code).toBe(0);
    expect(start2.stderr).toBe("");
    const out = JSON.parse(start2.stdout);
    expect(Object.keys(out)).toEqual(["hookSpecificOutput"]);
    expect(out.hookSpecificOutput.hookEventName).toBe("SessionStart");
    const context: string = out.hookSpecificOutput.additionalContext;
    expect(Buffer.byteLength(context)).toBeLessThanOrEqual(8192);
    expect(context).toContain(`project/${project}/build = run make, never npm build`);
    expect(context).toContain("filler message 39");
    expect(context).not.toContain("xxxxxxxxxx");
    const now = await runJson(["fact", "get", `project/${project}/latest-capture`], { home: L.home });
    expect(now.value.harness_session).toBe(second);
  });

  test("a transcript file named otherwise than its session id still gets a cursor, keyed by the event's session id", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const path = `${L.projectDir}/odd name.jsonl`;
    writeFileSync(path, jsonl(conversation(SID, L.cwd).user("hello from an oddly named file")));
    const stdin = JSON.stringify({ session_id: SID, transcript_path: path, cwd: L.cwd, hook_event_name: "Stop" });
    expect((await runZ(["hook", "claude-code"], { home: L.home, stdin, cwd: L.cwd })).code).toBe(0);
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(turns.map((t) => t.idem_key)).toEqual([`${SID}:0:0`]);
  });

  test("stdin read synchronously: an event written in two parts, the pipe closed after, is read whole", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    writeFileSync(L.transcript(SID), jsonl(conversation(SID, L.cwd).user("written before the event")));
    const event = JSON.stringify({ session_id: SID, transcript_path: L.transcript(SID), cwd: L.cwd, hook_event_name: "Stop" });
    const proc = Bun.spawn([ZERODB, "hook", "claude-code"], {
      cwd: L.cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: L.home, ZERODB_HOME: join(L.home, "zerodb") },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    proc.stdin.write(event.slice(0, 20));
    await proc.stdin.flush();
    proc.stdin.write(event.slice(20));
    await proc.stdin.end();
    const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    expect({ code, out, err }).toEqual({ code: 0, out: "", err: "" });
    expect(await logLines(L.home)).toEqual([]);
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(turns.map((t) => t.content)).toEqual(["written before the event"]);
  });

  test("ZERODB_CAPTURE_TRACE prints the run's figures and phase times; =time leaves out the SQL counts, which cost the run time", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const c = conversation(SID, L.cwd);
    const traced = async (value: string, round: string) => {
      appendLines(L.transcript(SID), [c.user(`${round} one`), c.user(`${round} two`)]);
      const r = await runHook(L, "Stop", SID, { env: { ZERODB_CAPTURE_TRACE: value } });
      expect(r.code).toBe(0);
      return JSON.parse(r.stderr.trim()) as { appended: number; sql?: { statements: number }; ms: Record<string, number> };
    };
    const full = await traced("1", "first");
    expect(full).toMatchObject({ appended: 2 });
    expect(full.sql!.statements).toBeGreaterThan(0);
    const timed = await traced("time", "second");
    expect(timed).toMatchObject({ appended: 2 });
    expect(timed.sql).toBeUndefined();
    expect(Object.keys(timed.ms)).toEqual(["entered", "opened", "captured"]);
  });
});
