/**
 * Issue 28: what is captured is what is searched (DESIGN.md 11). Claude
 * Code 2.x writes a subagent's messages into the parent transcript as
 * `progress` lines with `data.type: "agent_progress"`; they are rendered as
 * the messages they carry, and stored once when the subagent's own
 * transcript (`<session id>/subagents/agent-<id>.jsonl`) holds them too.
 * Compaction (its prompt, the compaction agent's reply, the compact summary)
 * is kind `summary`, still searched by default.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { lineEntries } from "../../src/capture/entries.ts";
import { localSink } from "../../src/capture/local-sink.ts";
import { SourceFile, readBatch } from "../../src/capture/read-batch.ts";
import { renderLine } from "../../src/capture/render.ts";
import { mainSource } from "../../src/capture/sources.ts";
import { syncTranscripts, transcriptSources } from "../../src/capture/sync.ts";
import { SearchClass } from "../../src/search/search-class.ts";
import { CURSOR_START } from "../../src/store/capture-cursors.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";
import { appendLines, claudeLayout, conversation } from "./_fixtures.ts";

const SID = "28282828-0000-4000-8000-000000000028";
const CWD = "/home/u/app";

let n = 0;
const id = () => `00000000-0000-4000-8000-28${(++n).toString(16).padStart(10, "0")}`;

/** A subagent's message: the line its own transcript has, and the progress line carrying it in the parent's. */
function subagentMessage(agentId: string, type: "user" | "assistant", content: unknown) {
  const inner = {
    type,
    message: type === "user" ? { role: "user", content } : { id: `msg_${n}`, type: "message", role: "assistant", model: "m", content },
    uuid: id(),
    timestamp: `2026-03-01T00:00:${String(n % 60).padStart(2, "0")}.000Z`,
  };
  const own = { parentUuid: null, isSidechain: true, userType: "external", cwd: CWD, sessionId: SID, version: "2.1.39", agentId, ...inner };
  const progress = {
    parentUuid: id(),
    isSidechain: false,
    userType: "external",
    cwd: CWD,
    sessionId: SID,
    version: "2.1.39",
    gitBranch: "main",
    slug: "some-slug",
    type: "progress",
    data: { message: inner, normalizedMessages: [], type: "agent_progress", prompt: "Look into it.", agentId },
    toolUseID: `agent_msg_${agentId}`,
    parentToolUseID: `toolu_task_${agentId}`,
    uuid: id(),
    timestamp: "2026-03-01T00:01:00.000Z",
  };
  return { own, progress, inner };
}

/** The one entry of a line as capture makes it (`own`: the agents whose own transcript exists). */
function entryOf(line: unknown, opts: { own?: string[]; agentId?: string; tools?: Record<string, string> } = {}) {
  const own = new Set(opts.own ?? []);
  const { entries, uses } = lineEntries(JSON.stringify(line), {
    idemPrefix: SID,
    position: 7,
    redact: true,
    ...(opts.agentId ? { agentId: opts.agentId } : {}),
    toolName: (t) => opts.tools?.[t],
    render: (text) => renderLine(text, { ownFile: (a) => own.has(a) }),
  });
  expect(entries.length).toBe(1);
  return { ...entries[0]!, uses };
}

describe("an agent_progress line is the subagent's message it carries", () => {
  test("the subagent's prompt, tool call, tool result and reply, with whose they are", () => {
    const prompt = subagentMessage("a7", "user", [{ type: "text", text: "Find where uploads retry." }]);
    expect(entryOf(prompt.progress)).toEqual({
      role: "user",
      content: "Find where uploads retry.",
      idem_key: `${SID}:7:0`,
      uses: [],
      meta: {
        type: "progress",
        subtype: "agent_progress",
        uuid: prompt.inner.uuid,
        progress_uuid: prompt.progress.uuid,
        parentUuid: prompt.progress.parentUuid,
        timestamp: prompt.inner.timestamp,
        isSidechain: true,
        agent_id: "a7",
        parent_tool_use_id: "toolu_task_a7",
        position: 7,
        kind: "prompt",
      },
    });
    const call = entryOf(
      subagentMessage("a7", "assistant", [{ type: "tool_use", id: "toolu_g1", name: "Grep", input: { pattern: "retry\nbudget" } }]).progress,
    );
    expect({ role: call.role, content: call.content, kind: call.meta.kind, tools: call.meta.tools, ids: call.meta.tool_use_ids, uses: call.uses }).toEqual({
      role: "assistant",
      content: '[tool_use Grep]\n{"pattern":"retry\\nbudget"}',
      kind: "tool_call",
      tools: ["Grep"],
      ids: ["toolu_g1"],
      uses: [{ id: "toolu_g1", name: "Grep" }],
    });
    const result = entryOf(
      subagentMessage("a7", "user", [{ type: "tool_result", tool_use_id: "toolu_g1", content: "upload/retry.ts:7: budget = 5" }]).progress,
    );
    expect([result.role, result.content, result.meta.kind]).toEqual(["tool", "[tool_result]\nupload/retry.ts:7: budget = 5", "tool_result"]);
    const reply = entryOf(subagentMessage("a7", "assistant", [{ type: "text", text: "The budget is 5." }]).progress);
    expect([reply.role, reply.content, reply.meta.kind, reply.meta.message_id]).toEqual(["assistant", "The budget is 5.", "reply", expect.any(String)]);
  });

  test("it reads as the same message's line in the subagent's own transcript does", () => {
    for (const m of [
      subagentMessage("a7", "user", [{ type: "tool_result", tool_use_id: "toolu_r1", content: [{ type: "text", text: "line 1\nline 2" }], is_error: true }]),
      subagentMessage("a7", "assistant", [
        { type: "thinking", thinking: "Where?", signature: "s" },
        { type: "tool_use", id: "toolu_r1", name: "Read", input: { file_path: "/a" } },
      ]),
    ]) {
      const carried = entryOf(m.progress);
      const own = entryOf(m.own, { agentId: "a7" });
      expect({ role: carried.role, content: carried.content, kind: carried.meta.kind, uuid: carried.meta.uuid }).toEqual({
        role: own.role,
        content: own.content,
        kind: own.meta.kind,
        uuid: own.meta.uuid,
      });
    }
  });

  test("a subagent's call of a zerodb tool and its result are zerodb's own output", () => {
    const call = subagentMessage("a7", "assistant", [{ type: "tool_use", id: "toolu_z1", name: "mcp__zerodb__search", input: { query: "x" } }]);
    expect(entryOf(call.progress).meta).toMatchObject({ kind: "tool_call", noise: "zerodb" });
    const result = subagentMessage("a7", "user", [{ type: "tool_result", tool_use_id: "toolu_z1", content: '{"hits":[]}' }]);
    expect(entryOf(result.progress, { tools: { toolu_z1: "mcp__zerodb__search" } }).meta).toMatchObject({ kind: "tool_result", noise: "zerodb" });
  });

  test("stored once: when the subagent's own transcript exists, the progress line is a small note", () => {
    const m = subagentMessage("a7", "user", [{ type: "tool_result", tool_use_id: "toolu_g1", content: "zqxonlyonce" }]);
    const note = entryOf(m.progress, { own: ["a7"] });
    expect(note).toEqual({
      role: "note",
      content: `[agent_progress] a7: user message ${m.inner.uuid}, stored from agent-a7.jsonl`,
      idem_key: `${SID}:7:0`,
      uses: [],
      meta: {
        type: "progress",
        subtype: "agent_progress",
        uuid: m.inner.uuid,
        progress_uuid: m.progress.uuid,
        parentUuid: m.progress.parentUuid,
        timestamp: m.inner.timestamp,
        isSidechain: true,
        agent_id: "a7",
        parent_tool_use_id: "toolu_task_a7",
        stored_in: "agent-a7.jsonl",
        position: 7,
        kind: "system",
        noise: "bookkeeping",
      },
    });
    // Another agent's file says nothing about this one's messages.
    expect(entryOf(m.progress, { own: ["b8"] }).content).toBe("[tool_result]\nzqxonlyonce");
  });

  test("other progress lines stay bookkeeping: hook runs, bash output, waiting for a task, an agent_progress carrying nothing", () => {
    const line = (data: unknown) => ({
      parentUuid: null,
      isSidechain: false,
      type: "progress",
      uuid: id(),
      timestamp: "2026-03-01T00:00:00.000Z",
      data,
      toolUseID: "t",
    });
    for (const data of [
      { type: "hook_progress", hookEvent: "PostToolUse", hookName: "PostToolUse:Read", command: "lint" },
      { type: "bash_progress", output: "building", elapsedTimeSeconds: 2 },
      { type: "waiting_for_task", taskDescription: "explore", taskType: "local_agent" },
      { type: "agent_progress", agentId: "a7", prompt: "p", normalizedMessages: [] },
      { type: "agent_progress", agentId: "a7", message: { type: "system", uuid: "u", message: { role: "system", content: "x" } } },
    ]) {
      const e = entryOf(line(data));
      expect({ role: e.role, kind: e.meta.kind, noise: e.meta.noise, start: e.content.slice(0, 12) }).toEqual({
        role: "note",
        kind: "system",
        noise: "bookkeeping",
        start: "[progress] {",
      });
    }
  });
});

describe("compaction is a summary", () => {
  const c = conversation(SID, CWD);
  const compactor = (line: Record<string, unknown>) => ({ ...line, isSidechain: true, agentId: "acompact-9f8e7d" });
  const kind = (line: unknown, agentId?: string) => entryOf(line, agentId ? { agentId } : {}).meta.kind;

  test("the compaction prompt, the compaction agent's reply and the compact summary; the agent's copies of harness lines stay bookkeeping", () => {
    const prompt = "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests.";
    expect(kind(compactor(c.user(prompt)))).toBe("summary");
    // Where no line names the agent, its transcript's name does.
    expect(kind(c.user(prompt), "acompact-9f8e7d")).toBe("summary");
    expect(kind(c.user(prompt))).toBe("summary");
    expect(kind(compactor(c.assistant([{ type: "text", text: "<analysis>\nRetries.\n</analysis>\n\n<summary>\n1. Retries\n</summary>" }])))).toBe("summary");
    expect(kind(c.assistant([{ type: "text", text: "<summary>done</summary>" }]), "acompact-9f8e7d")).toBe("summary");
    expect(kind(c.user("This session is being continued from a previous conversation.", { isCompactSummary: true }))).toBe("summary");
    expect(entryOf(compactor(c.user("<system-reminder>lint ok</system-reminder>", { isMeta: true }))).meta).toMatchObject({
      kind: "system",
      noise: "bookkeeping",
    });
    // An ordinary subagent's reply, and a prompt that only talks of summaries, are what they were.
    expect(kind(c.assistant([{ type: "text", text: "<summary>x</summary>" }]), "a7")).toBe("reply");
    expect(kind(c.user("please summarize the retry discussion"))).toBe("prompt");
  });
});

describe("captured through the store", () => {
  /** A parent transcript whose two subagents found one thing each: a7 has its own transcript, b8 has none. */
  function session(root: string) {
    const layout = claudeLayout(root);
    const c = conversation(SID, layout.cwd);
    const a = [
      subagentMessage("a7", "user", [{ type: "text", text: "Find where uploads retry." }]),
      subagentMessage("a7", "assistant", [{ type: "tool_use", id: "toolu_g1", name: "Grep", input: { pattern: "retry" } }]),
      subagentMessage("a7", "user", [{ type: "tool_result", tool_use_id: "toolu_g1", content: "upload/retry.ts:7: zqxfoundbyseven = 5" }]),
    ];
    const b = [
      subagentMessage("b8", "user", [{ type: "text", text: "Find how downloads back off." }]),
      subagentMessage("b8", "assistant", [{ type: "tool_use", id: "toolu_r1", name: "Read", input: { file_path: "/app/backoff.ts" } }]),
      subagentMessage("b8", "user", [{ type: "tool_result", tool_use_id: "toolu_r1", content: "export const curve = zqxfoundbyeight;" }]),
    ];
    const main = [
      c.user("Where do uploads retry, and how do downloads back off?"),
      ...a.map((m) => m.progress),
      ...b.map((m) => m.progress),
      {
        parentUuid: null,
        isSidechain: false,
        type: "progress",
        uuid: id(),
        timestamp: "2026-03-01T00:02:00.000Z",
        data: { type: "hook_progress", hookEvent: "Stop", hookName: "Stop", command: "zqxhookword" },
        toolUseID: "h",
      },
      c.assistant([{ type: "text", text: "Both found." }]),
    ];
    appendLines(layout.transcript(SID), main);
    appendLines(
      layout.subagent(SID, "a7"),
      a.map((m) => m.own),
    );
    const compactPrompt = "Your task is to create a detailed summary of the conversation so far.";
    appendLines(layout.subagent(SID, "acompact-9f8e7d"), [
      compactor(c.user(compactPrompt)),
      compactor(c.assistant([{ type: "text", text: "<analysis>x</analysis>\n<summary>zqxsummaryword</summary>" }])),
    ]);
    return layout;
    function compactor(line: Record<string, unknown>) {
      return { ...line, isSidechain: true, agentId: "acompact-9f8e7d" };
    }
  }

  test("a subagent's finding is found exactly once, from its own transcript or, without one, from the parent's", async () => {
    using dir = tempDir();
    const layout = session(dir.path);
    const store = openSqliteStore(join(dir.path, "data"));
    try {
      const sync = await syncTranscripts(localSink(store, "local"), [layout.transcript(SID)], { redact: true });
      expect(sync.warnings).toEqual([]);
      const m = store.memory("local");
      const found = async (query: string, include_noise = false) => (await m.search({ query, include_noise })).hits;
      const [seven] = await found("zqxfoundbyseven");
      expect((await found("zqxfoundbyseven")).length).toBe(1);
      expect((await found("zqxfoundbyseven", true)).map((h) => h.lsn)).toEqual([seven!.lsn]);
      const [eight] = await found("zqxfoundbyeight");
      expect((await found("zqxfoundbyeight", true)).map((h) => h.lsn)).toEqual([eight!.lsn]);
      const turns = (await m.read({ session: seven!.session!, limit: 1000 })).turns;
      const at = (lsn: number) => turns.find((t) => t.lsn === lsn)!;
      // a7's finding is its own transcript's line; b8's is the parent's progress line, read as the message.
      expect(at(seven!.lsn).idem_key).toBe(`${SID}/agent-a7.jsonl:2:0`);
      expect(at(eight!.lsn)).toMatchObject({
        idem_key: `${SID}:6:0`,
        role: "tool",
        content: "[tool_result]\nexport const curve = zqxfoundbyeight;",
        meta: { type: "progress", subtype: "agent_progress", agent_id: "b8", isSidechain: true, kind: "tool_result" },
      });
      // a7's progress lines are notes naming the transcript the messages are stored from.
      const notes = turns.filter((t) => t.meta.stored_in !== undefined);
      expect(notes.map((t) => [t.idem_key, t.meta.agent_id, t.meta.noise])).toEqual([
        [`${SID}:1:0`, "a7", "bookkeeping"],
        [`${SID}:2:0`, "a7", "bookkeeping"],
        [`${SID}:3:0`, "a7", "bookkeeping"],
      ]);
      // The hook run stays bookkeeping; the compaction agent's prompt and reply are summaries, found by default.
      expect(await found("zqxhookword")).toEqual([]);
      expect((await found("zqxhookword", true)).length).toBe(1);
      const [summary] = await found("zqxsummaryword");
      expect(at(summary!.lsn).meta.kind).toBe("summary");
      const db = new Database(join(dir.path, "data", "zerodb.sqlite"), { readonly: true });
      const classes = db.query("SELECT sclass FROM tape WHERE lsn IN (?, ?) ORDER BY lsn").all(seven!.lsn, summary!.lsn) as { sclass: number }[];
      db.close();
      expect(classes.map((r) => r.sclass)).toEqual([SearchClass.tool_result, SearchClass.summary]);
    } finally {
      store.close();
    }
  });

  test("deterministic: the lines read again give the very same entries, so a replay is a duplicate (I3)", async () => {
    using dir = tempDir();
    const layout = session(dir.path);
    const store = openSqliteStore(join(dir.path, "data"));
    try {
      await syncTranscripts(localSink(store, "local"), [layout.transcript(SID)], { redact: true });
      const m = store.memory("local");
      const { sources } = transcriptSources(layout.transcript(SID));
      expect(sources[0]).toEqual(mainSource(layout.transcript(SID), SID));
      expect(sources[0]!.agentsDir).toBe(join(layout.projectDir, SID, "subagents"));
      const session = (await m.sessions({})).sessions.find((s) => s.name.includes("/"))!.name;
      let replayed = 0;
      for (const source of sources) {
        using file = new SourceFile(source);
        const read = readBatch(
          source,
          file,
          { start: CURSOR_START, session, redact: true, limits: { entries: 1000, bytes: 1 << 30, firstFree: true }, deadline: undefined },
          new Set(),
        )!;
        const r = await m.append({ session, entries: read.batch.entries.map((e) => e.entry) });
        expect(r.entries.every((e) => e.duplicate)).toBe(true);
        replayed += r.entries.length;
      }
      expect(replayed).toBe(9 + 3 + 2);
    } finally {
      store.close();
    }
  });
});
