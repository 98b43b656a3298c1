/**
 * opencode capture (DESIGN.md 14): sessions in opencode.db (fixtures with
 * opencode's schema and shapes, see _opencode.ts) backfilled by `capture
 * sync`, captured by the hook its plugin runs, exactly once across repeated
 * runs, SIGKILLed hooks and a revert, only once a message is finished, never
 * failing on a locked database, under the same project session as Claude
 * Code's for the same directory.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { idNumber } from "../../src/capture/opencode.ts";
import { captureSession, projectSession } from "../../src/project.ts";
import { tempDir } from "../helpers.ts";
import { keysOf, logLines, readSession, runJson, type StoredTurn } from "./_fixtures.ts";
import { EXCHANGE_RECORDS, opencodeDb, opencodeEnv, spawnOpencodeHook, toolPart } from "./_opencode.ts";

/** A project directory under the test home. */
function project(home: string, name = "app"): string {
  const cwd = join(home, "work", name);
  mkdirSync(cwd, { recursive: true });
  return cwd;
}

const sync = (home: string) => runJson(["capture", "sync"], { home, env: opencodeEnv(home) });

/** Keys in order, no duplicate, each source's positions rising. */
function expectOrderedOnce(turns: StoredTurn[], count: number) {
  const { keys, duplicates } = keysOf(turns);
  expect(duplicates).toEqual([]);
  expect(keys.length).toBe(count);
  const bySource = new Map<string, number[]>();
  for (const k of keys) {
    const [, sid, pos, chunk] = /^opencode:([^:]+):(\d+):(\d+)$/.exec(k)!;
    if (chunk !== "0") continue;
    bySource.set(sid!, [...(bySource.get(sid!) ?? []), Number(pos)]);
  }
  for (const list of bySource.values()) expect(list).toEqual([...list].sort((a, b) => a - b));
}

describe("opencode capture", () => {
  test("capture sync backfills every part type once, with kinds and harness, a subagent's session marked sidechain, in the directory's project session", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    const u = oc.user(s, [
      "please look at the logo",
      { type: "text", text: "contents of README.md", synthetic: true },
      { type: "file", mime: "image/png", filename: "logo.png", url: `data:image/png;base64,${Buffer.from("\x89PNG fake").toString("base64")}` },
      { type: "agent", name: "general" },
      { type: "subtask", prompt: "check the tests", description: "tests", agent: "general" },
    ]);
    const a = oc.assistant(s, u, { finish: "tool-calls" });
    oc.part(s, a, { type: "step-start", snapshot: "abc" });
    oc.part(s, a, { type: "reasoning", text: "I should look", time: { start: 1, end: 2 } });
    oc.part(s, a, toolPart("read", "call_1", { filePath: "/x/logo.png" }, "a picture"));
    oc.part(s, a, {
      type: "tool",
      tool: "bash",
      callID: "call_2",
      state: { status: "error", input: { command: "false" }, error: "exit 1", time: { start: 1, end: 2 } },
    });
    oc.part(s, a, toolPart("zerodb_remember", "call_3", { text: "the logo is blue" }, "remembered"));
    oc.part(s, a, { type: "a-later-type", detail: "kept" });
    oc.part(s, a, { type: "patch", hash: "abc", files: ["/x/a.ts"] });
    oc.part(s, a, { type: "snapshot", snapshot: "def" });
    oc.part(s, a, { type: "retry", attempt: 1, error: { name: "APIError" }, time: { created: 1 } });
    oc.part(s, a, { type: "compaction", auto: true });
    oc.part(s, a, { reason: "tool-calls", type: "step-finish", tokens: { total: 1 }, cost: 0 });
    const child = oc.session(cwd, s);
    const cu = oc.user(child, ["list the files"]);
    const ca = oc.assistant(child, cu);
    oc.part(child, ca, { type: "text", text: "three files" });
    const b = oc.assistant(s, u, { error: { name: "MessageAbortedError", data: { message: "aborted" } }, finish: "stop" });
    oc.part(s, b, { type: "text", text: "the logo is blue", time: { start: 1, end: 2 } });
    oc.close();

    const first = await sync(dir.path);
    expect(first).toMatchObject({ transcripts: 2, skipped: 0, warnings: [] });
    expect(await sync(dir.path)).toMatchObject({ appended: 0, skipped: 0, warnings: [] });
    const session = captureSession(projectSession(cwd), s);
    const turns = await readSession(dir.path, session);
    expect(first.appended).toBe(turns.length);
    const view = turns.map((t) => [t.role, t.meta.kind, t.meta.noise ?? null, t.meta.type, t.meta.isSidechain ?? false, t.content.split("\n")[0]]);
    expect(view).toEqual([
      ["note", "system", "bookkeeping", "message", false, expect.stringMatching(/^\[user message\] \{"agent":"build"/)],
      ["user", "prompt", null, "text", false, "please look at the logo"],
      ["user", "system", "bookkeeping", "text", false, "contents of README.md"],
      ["user", "system", "bookkeeping", "file", false, "[file logo.png image/png]"],
      ["note", "system", "bookkeeping", "agent", false, '[agent] {"type":"agent","name":"general"}'],
      ["user", "prompt", null, "subtask", false, "[subtask general]"],
      ["note", "system", "bookkeeping", "message", false, expect.stringMatching(/^\[assistant message tool-calls\]/)],
      ["note", "system", "bookkeeping", "step-start", false, expect.stringContaining("[step-start]")],
      ["assistant", "reply", null, "reasoning", false, "[reasoning]"],
      ["assistant", "tool_call", null, "tool", false, "[tool_use read]"],
      ["tool", "tool_result", null, "tool", false, "[tool_result]"],
      ["assistant", "tool_call", null, "tool", false, "[tool_use bash]"],
      ["tool", "tool_result", null, "tool", false, "[tool_result error]"],
      ["assistant", "tool_call", "zerodb", "tool", false, "[tool_use zerodb_remember]"],
      ["tool", "tool_result", "zerodb", "tool", false, "[tool_result]"],
      ["note", "system", "bookkeeping", "a-later-type", false, expect.stringContaining("[a-later-type]")],
      ["note", "system", "bookkeeping", "patch", false, expect.stringContaining("[patch]")],
      ["note", "system", "bookkeeping", "snapshot", false, expect.stringContaining("[snapshot]")],
      ["note", "system", "bookkeeping", "retry", false, expect.stringContaining("[retry]")],
      ["note", "system", "bookkeeping", "compaction", false, expect.stringContaining("[compaction]")],
      ["note", "system", "bookkeeping", "step-finish", false, expect.stringContaining("[step-finish]")],
      ["note", "system", "bookkeeping", "message", false, expect.stringMatching(/^\[assistant message stop error\]/)],
      ["assistant", "reply", null, "text", false, "the logo is blue"],
      // The subagent's session after its parent's (each session is read in order, parents first).
      ["note", "system", "bookkeeping", "message", true, expect.stringMatching(/^\[user message\]/)],
      ["user", "prompt", null, "text", true, "list the files"],
      ["note", "system", "bookkeeping", "message", true, expect.stringMatching(/^\[assistant message stop\]/)],
      ["assistant", "reply", null, "text", true, "three files"],
    ]);
    expect(turns.every((t) => t.meta.harness === "opencode")).toBe(true);
    expect(turns.find((t) => t.meta.type === "file")!.meta.images).toEqual([expect.objectContaining({ type: "image/png" })]);
    expect(turns.find((t) => t.content.startsWith("[tool_result error]"))!.content).toBe("[tool_result error]\nexit 1");
    expect(turns.filter((t) => t.meta.isSidechain).every((t) => t.meta.agent_id === child && t.idem_key!.startsWith(`opencode:${child}:`))).toBe(true);
    expectOrderedOnce(turns, turns.length);
    const status = await runJson(["capture", "status"], { home: dir.path, env: opencodeEnv(dir.path) });
    expect(status.sessions).toEqual([
      { source: `opencode:${s}`, harness: "opencode", capture_session: session, transcript: `${oc.path}#${s}`, lines_captured: 23, lines_behind: 0 },
      { source: `opencode:${child}`, harness: "opencode", capture_session: session, transcript: `${oc.path}#${child}`, lines_captured: 4, lines_behind: 0 },
    ]);
  }, 60_000);

  test("a message still streaming is not captured; once complete its parts are stored once, as they ended", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    oc.exchange(s, 0);
    const u = oc.user(s, ["write a poem"]);
    const a = oc.assistant(s, u, { completed: false });
    const text = oc.part(s, a, { type: "text", text: "Roses" });
    // A prompt queued while the reply streams waits behind it.
    oc.user(s, ["and a second one"]);
    const first = await sync(dir.path);
    expect(first.appended).toBe(EXCHANGE_RECORDS + 2);
    oc.updatePart(text, { type: "text", text: "Roses are red" });
    expect((await sync(dir.path)).appended).toBe(0);
    oc.updatePart(text, { type: "text", text: "Roses are red, violets are blue" });
    oc.complete(a);
    expect((await sync(dir.path)).appended).toBe(2 + 2);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expect(turns.filter((t) => t.meta.kind === "reply" && t.content.startsWith("Roses")).map((t) => t.content)).toEqual(["Roses are red, violets are blue"]);
    expect(turns.filter((t) => t.meta.kind === "prompt").map((t) => t.content)).toEqual(["turn 0 question", "write a poem", "and a second one"]);
    expectOrderedOnce(turns, EXCHANGE_RECORDS + 6);
    oc.close();
  }, 60_000);

  test("a reply abandoned mid-stream (opencode killed) is captured once a later reply exists", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    const u = oc.user(s, ["go"]);
    const a = oc.assistant(s, u, { completed: false });
    oc.part(s, a, { type: "tool", tool: "bash", callID: "c", state: { status: "running", input: { command: "sleep 99" }, time: { start: 1 } } });
    expect((await sync(dir.path)).appended).toBe(2);
    const u2 = oc.user(s, ["again"]);
    const b = oc.assistant(s, u2);
    oc.part(s, b, { type: "text", text: "done" });
    expect((await sync(dir.path)).appended).toBe(3 + 4);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expect(turns.find((t) => t.meta.kind === "tool_result")!.content).toBe("[tool_result running]\n(no result: the reply ended before the tool answered)");
    oc.close();
  }, 60_000);

  test("a database held by a writer: in WAL mode the committed rows are read and the rest later; a locked rollback-journal database is a warning, caught up later", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    oc.exchange(s, 0);
    oc.db.run("BEGIN IMMEDIATE");
    oc.exchange(s, 1);
    const during = await sync(dir.path);
    expect(during).toMatchObject({ appended: EXCHANGE_RECORDS, warnings: [] });
    oc.db.run("COMMIT");
    expect((await sync(dir.path)).appended).toBe(EXCHANGE_RECORDS);
    oc.close();

    using dir2 = tempDir();
    const cwd2 = project(dir2.path);
    const journal = opencodeDb(dir2.path, { journal: "delete" });
    const s2 = journal.session(cwd2);
    journal.exchange(s2, 0);
    journal.db.run("BEGIN EXCLUSIVE");
    journal.exchange(s2, 1);
    const locked = await sync(dir2.path);
    expect(locked.appended).toBe(0);
    expect(locked.warnings.join("\n")).toContain("SQLITE_BUSY");
    journal.db.run("COMMIT");
    const after = await sync(dir2.path);
    expect(after).toMatchObject({ appended: 2 * EXCHANGE_RECORDS, warnings: [] });
    journal.close();
  }, 60_000);

  test("the hook captures the session and its subagents; repeated hooks and syncs store nothing twice; a missing session is one log line", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    for (let i = 0; i < 3; i++) oc.exchange(s, i);
    const child = oc.session(cwd, s);
    oc.exchange(child, 9, "sub");
    for (const id of [child, s, s]) {
      const hook = spawnOpencodeHook(dir.path, id);
      expect({ code: await hook.exited, out: await new Response(hook.stdout).text() }).toEqual({ code: 0, out: "" });
    }
    expect((await sync(dir.path)).appended).toBe(0);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expectOrderedOnce(turns, 4 * EXCHANGE_RECORDS);
    expect(turns.filter((t) => t.meta.isSidechain).length).toBe(EXCHANGE_RECORDS);
    expect(await logLines(dir.path)).toEqual([]);
    const missing = spawnOpencodeHook(dir.path, "ses_nothere");
    expect(await missing.exited).toBe(0);
    expect((await logLines(dir.path)).join("\n")).toContain("no opencode database holds session ses_nothere");
    oc.close();
  }, 60_000);

  test("20 hooks killed with SIGKILL, then capture sync: no duplicate, no gap", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    const n = 300;
    oc.db.run("BEGIN");
    for (let i = 0; i < n; i++) oc.exchange(s, i, "kill");
    oc.db.run("COMMIT");
    let killed = 0;
    for (let i = 0; i < 200 && killed < 20; i++) {
      const proc = spawnOpencodeHook(dir.path, s);
      // The delay is the kill point inside a run, not a wait for a condition.
      await Bun.sleep(10 + ((i * 7) % 60));
      proc.kill("SIGKILL");
      await proc.exited;
      if (proc.signalCode === "SIGKILL") killed++;
    }
    expect(killed).toBe(20);
    const r = await sync(dir.path);
    expect(r.warnings).toEqual([]);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expectOrderedOnce(turns, n * EXCHANGE_RECORDS);
    oc.close();
  }, 180_000);

  test("hooks racing while opencode writes (a reply streaming at each round) never store a record twice or skip one", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    let done = 0;
    for (let round = 0; round < 6; round++) {
      for (let k = 0; k < 4 + round; k++) oc.exchange(s, done++, "race");
      // A reply still streaming when the hooks run: finished only after them.
      const u = oc.user(s, [`race ${done} question`]);
      const a = oc.assistant(s, u, { completed: false });
      oc.part(s, a, { type: "text", text: "partial" });
      const procs = [0, 1, 2].map(() => spawnOpencodeHook(dir.path, s));
      expect(await Promise.all(procs.map((p) => p.exited))).toEqual([0, 0, 0]);
      oc.complete(a);
    }
    const last = spawnOpencodeHook(dir.path, s);
    expect(await last.exited).toBe(0);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expectOrderedOnce(turns, done * EXCHANGE_RECORDS + 6 * 4);
    expect(turns.filter((t) => t.content === "partial")).toHaveLength(6);
    expect(await logLines(dir.path)).toEqual([]);
    oc.close();
  }, 120_000);

  test("a revert deleting captured messages loses nothing stored and shifts nothing: later messages are captured once", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    oc.exchange(s, 0);
    oc.exchange(s, 1);
    expect((await sync(dir.path)).appended).toBe(2 * EXCHANGE_RECORDS);
    // opencode's revert cleanup: the messages after the revert point go, with their parts.
    const gone = oc.db.query<{ id: string }, [string]>("SELECT id FROM message WHERE session_id = ? ORDER BY id").all(s).slice(3);
    for (const m of gone) {
      oc.db.query("DELETE FROM part WHERE message_id = ?").run(m.id);
      oc.db.query("DELETE FROM message WHERE id = ?").run(m.id);
    }
    oc.exchange(s, 2);
    expect((await sync(dir.path)).appended).toBe(EXCHANGE_RECORDS);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expectOrderedOnce(turns, 3 * EXCHANGE_RECORDS);
    expect(turns.filter((t) => t.meta.kind === "prompt").map((t) => t.content)).toEqual(["turn 0 question", "turn 1 question", "turn 2 question"]);
    oc.close();
  }, 60_000);

  test("a 9 MiB tool output is chunked, secrets in a prompt and a tool input are redacted, and ids across the 48-bit wrap stay in order", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    // 2026-08-14T00:59:55Z is 5 s before opencode's 48-bit id numbers wrap to zero.
    const oc = opencodeDb(dir.path, { start: 68719476736 * 26 - 5000 + 1000 * 3600 });
    oc.setClock(68719476736 * 26 - 3);
    const s = oc.session(cwd);
    const u = oc.user(s, ["my key is AKIAIOSFODNN7EXAMPLE, keep it"]);
    const big = "x".repeat(9 * 1024 * 1024);
    const a = oc.assistant(s, u);
    oc.part(s, a, toolPart("bash", "c1", { command: "export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345" }, big));
    oc.part(s, a, { type: "text", text: "done" });
    oc.close();
    const r = await sync(dir.path);
    expect(r.warnings).toEqual([]);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    const prompt = turns.find((t) => t.meta.kind === "prompt")!;
    expect(prompt.content).not.toContain("AKIAIOSFODNN7EXAMPLE");
    expect(prompt.meta.redacted).toBeGreaterThan(0);
    expect(turns.find((t) => t.meta.kind === "tool_call")!.content).not.toContain("ghp_0123456789");
    const chunks = turns.filter((t) => t.meta.kind === "tool_result");
    expect(chunks.length).toBe(4);
    expect(chunks.map((c) => c.content).join("")).toBe(`[tool_result]\n${big}`);
    // The records on both sides of the wrap are in creation order.
    expect(turns.map((t) => t.meta.type ?? t.meta.kind)).toEqual(["message", "text", "message", "tool", ...Array(4).fill("tool"), "text"]);
    expectOrderedOnce(turns, turns.length);
  }, 120_000);

  test("a part whose data is not JSON, and an id not of opencode's form, are no failure: the first is kept as a note, the second skipped", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    const u = oc.user(s, ["hi"]);
    const a = oc.assistant(s, u);
    const broken = oc.part(s, a, { type: "text", text: "x" });
    oc.db.query("UPDATE part SET data = ? WHERE id = ?").run('{"type":"text","text":"cut mid', broken);
    oc.db.query("INSERT INTO part VALUES ('prt_custom-id', ?, ?, ?, ?, ?)").run(a, s, oc.now(), oc.now(), JSON.stringify({ type: "text", text: "odd id" }));
    oc.part(s, a, { type: "text", text: "after" });
    const r = await sync(dir.path);
    expect(r.warnings).toEqual([]);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expect(turns.map((t) => t.content)).toEqual([
      expect.stringContaining("[user message]"),
      "hi",
      expect.stringContaining("[assistant message stop]"),
      expect.stringMatching(/^\[unknown\] \{"unparsable":.*cut mid/),
      "after",
    ]);
    oc.close();
  }, 60_000);

  test("idNumber undoes the 48-bit wrap of opencode's ids with the row's time", () => {
    const at = (ms: number) => `msg_${((BigInt(ms) * 4096n + 1n) & 0xffffffffffffn).toString(16).padStart(12, "0")}abcdefghijklmn`;
    const before = 68719476736 * 26 - 1;
    const after = 68719476736 * 26 + 1;
    expect(idNumber(at(before), before)! < idNumber(at(after), after)!).toBe(true);
    expect(idNumber(at(after), after + 50)).toBe(idNumber(at(after), after));
    expect(idNumber("msg_nothex", after)).toBeUndefined();
  });
});
