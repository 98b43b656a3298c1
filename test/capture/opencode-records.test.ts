/**
 * opencode capture, what each record becomes (DESIGN.md 14): every part type
 * of opencode.db (fixtures with opencode's schema and shapes, see
 * _opencode.ts) backfilled by `capture sync` with its kind and harness, a
 * subagent's session as a sidechain under the same project session as Claude
 * Code's for the same directory; big outputs chunked, secrets redacted, ids
 * ordered across opencode's 48-bit wrap, unreadable parts no failure.
 */
import { describe, expect, test } from "bun:test";
import { idNumber } from "../../src/capture/opencode-ids.ts";
import { sessionRecords } from "../../src/capture/opencode.ts";
import { captureSession, projectSession } from "../../src/project.ts";
import { tempDir } from "../helpers.ts";
import { readSession, runJson } from "./_fixtures.ts";
import { EXCHANGE_RECORDS, expectOrderedOnce, opencodeDb, opencodeEnv, project, sync, toolPart } from "./_opencode.ts";

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

  test("a 9 MiB tool output is chunked, secrets in a prompt and a tool input are redacted, and ids across the 48-bit wrap stay in order", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    // 2026-08-14T00:59:55Z is 5 s before opencode's 48-bit id numbers wrap to zero.
    const oc = opencodeDb(dir.path, { start: 68719476736 * 26 - 5000 + 1000 * 3600 });
    oc.setClock(68719476736 * 26 - 3);
    const s = oc.session(cwd);
    const u = oc.user(s, ["my key is AKIAZQ3XK7PLM2RT9WVB, keep it"]);
    const big = "x".repeat(9 * 1024 * 1024);
    const a = oc.assistant(s, u);
    oc.part(s, a, toolPart("bash", "c1", { command: "export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345" }, big));
    oc.part(s, a, { type: "text", text: "done" });
    oc.close();
    const r = await sync(dir.path);
    expect(r.warnings).toEqual([]);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    const prompt = turns.find((t) => t.meta.kind === "prompt")!;
    expect(prompt.content).not.toContain("AKIAZQ3XK7PLM2RT9WVB");
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

  test("a run after the cursor finds the new records by id: across the 48-bit wrap, beside other sessions, not the last cycle's ids", () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const WRAP_MS = 68719476736 * 26; // 2026-08-14T00:59:55Z, where the 48-bit id numbers wrap to zero
    const CYCLE_MS = 68719476736; // 2^48 / 4096: 795 days
    const oc = opencodeDb(dir.path, { start: WRAP_MS - CYCLE_MS + 3_600_000 });
    const s = oc.session(cwd);
    const other = oc.session(cwd);
    /** The records from `offset` as a run at `now` reads them: their positions, and the reader's end. */
    const read = (offset: number, now: number) => {
      using r = sessionRecords(oc.path, { id: s, parentId: null, directory: cwd, title: "" }, offset, now);
      return [...r.lines(offset)].map((l) => l.position!);
    };
    // One cycle earlier, an hour past that wrap: the same hex digits as the ids made an hour after this one.
    oc.exchange(s, 0);
    oc.setClock(WRAP_MS - 60_000);
    oc.exchange(s, 1);
    const first = read(0, WRAP_MS - 30_000);
    expect(first.length).toBe(2 * EXCHANGE_RECORDS);
    const cursor = first.at(-1)! + 1;
    // Across the wrap: the new ids' hex digits start again from zero.
    oc.setClock(WRAP_MS + 1000);
    oc.exchange(s, 2);
    oc.exchange(other, 3);
    const crossing = read(cursor, WRAP_MS + 5000);
    expect(crossing.length).toBe(EXCHANGE_RECORDS);
    expect(crossing[0]! > first.at(-1)!).toBe(true);
    // After the wrap, in one cycle: by id range, this session's only, nothing of the earlier cycle.
    const next = crossing.at(-1)! + 1;
    oc.exchange(s, 4);
    oc.exchange(other, 5);
    oc.exchange(s, 6);
    const after = read(next, WRAP_MS + 60_000);
    expect(after.length).toBe(2 * EXCHANGE_RECORDS);
    expect(after[0]! > crossing.at(-1)!).toBe(true);
    expect(read(after.at(-1)! + 1, WRAP_MS + 60_000)).toEqual([]);
    // The same records as a run reading the whole window finds (offset 0, then filtered).
    expect(read(0, WRAP_MS + 60_000).filter((p) => p >= next)).toEqual(after);
    oc.close();
  });
});
