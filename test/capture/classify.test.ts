/**
 * Every captured line says what kind of turn it is and whether search leaves
 * it out by default (DESIGN.md 11, "Noise"): meta.kind and meta.noise, from
 * transcript lines shaped like Claude Code 2.1 writes them.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { lineEntries } from "../../src/capture/entries.ts";
import { openLines } from "../../src/capture/lines.ts";
import { CONTEXT_HEADER } from "../../src/capture/start-context.ts";
import { toolNames } from "../../src/capture/tool-names.ts";
import { tempDir } from "../helpers.ts";
import { conversation, jsonl } from "./_fixtures.ts";

const SID = "5f0c6a2e-0000-4000-8000-000000000001";
const CWD = "/home/u/app";
const CONTEXT = `${CONTEXT_HEADER}\nProject session: app-1a2b3c4d. The zerodb MCP tools (search, recall, fact_get) reach the rest.\n\n## Facts\n- project/app-1a2b3c4d/deploy = blue-green`;

/** kind and noise of one line, tool names answered by `tools`. */
function classOf(line: unknown, tools: Record<string, string> = {}): { kind: unknown; noise?: unknown } {
  const { entries } = lineEntries(JSON.stringify(line), { idemPrefix: SID, position: 0, redact: true, toolName: (id) => tools[id] });
  const { kind, noise } = entries[0]!.meta;
  return noise === undefined ? { kind } : { kind, noise };
}

describe("kinds", () => {
  const c = conversation(SID, CWD);
  test("a typed prompt, as a string or as text and image blocks", () => {
    expect(classOf(c.user("how do we deploy?"))).toEqual({ kind: "prompt" });
    expect(
      classOf(
        c.user([
          { type: "text", text: "what is in this screenshot?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        ]),
      ),
    ).toEqual({ kind: "prompt" });
  });

  test("assistant text and thinking are replies", () => {
    expect(classOf(c.assistant([{ type: "text", text: "Deploys go through fly." }]))).toEqual({ kind: "reply" });
    expect(classOf(c.assistant([{ type: "thinking", thinking: "The user asks about fly.", signature: "sig" }]))).toEqual({ kind: "reply" });
  });

  test("an assistant line with any tool_use is a tool call, text beside it or not", () => {
    expect(classOf(c.assistant([{ type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "ls" } }]))).toEqual({ kind: "tool_call" });
    expect(
      classOf(
        c.assistant([
          { type: "text", text: "Let me look." },
          { type: "tool_use", id: "toolu_02", name: "Read", input: { file_path: "/a" } },
        ]),
      ),
    ).toEqual({ kind: "tool_call" });
  });

  test("a user line carrying tool_result blocks is a tool result", () => {
    expect(classOf(c.toolResult("toolu_01", "a.txt\nb.txt"), { toolu_01: "Bash" })).toEqual({ kind: "tool_result" });
    expect(classOf(c.toolResult("toolu_unknown", "no tool_use seen"))).toEqual({ kind: "tool_result" });
  });

  test("a compact summary is a summary (issue 28); an unparsable line is system text, but not bookkeeping", () => {
    expect(
      classOf(c.user("This session is being continued from a previous conversation...", { isCompactSummary: true, isVisibleInTranscriptOnly: true })),
    ).toEqual({ kind: "summary" });
    const { entries } = lineEntries("{not json", { idemPrefix: SID, position: 3, redact: true });
    expect(entries[0]!.meta).toEqual({ type: "unparsable", position: 3, kind: "system" });
  });
});

describe("bookkeeping", () => {
  const c = conversation(SID, CWD);
  const cases: [string, unknown][] = [
    ["queue-operation", c.queue("how do we deploy?")],
    ["last-prompt", c.lastPrompt("how do we deploy?")],
    ["summary", c.summary("Deploy questions")],
    ["file-history-snapshot", { type: "file-history-snapshot", messageId: "m1", snapshot: { trackedFileBackups: {} }, isSnapshotUpdate: false }],
    ["mode", { type: "mode", mode: "plan", sessionId: SID }],
    ["custom-title", { type: "custom-title", customTitle: "deploys", sessionId: SID }],
    ["a metadata type this build does not know", { type: "api-request", sessionId: SID, id: "r1", params: { model: "m" } }],
    [
      "a metadata line copying a request that holds zerodb's context",
      {
        type: "api-request-blob",
        sessionId: SID,
        message: { role: "system", content: [{ type: "text", text: `SessionStart hook additional context: ${CONTEXT}` }] },
      },
    ],
    ["a system line", c.system("Conversation compacted", "compact_boundary")],
    ["a stop hook summary", { ...c.system("", "stop_hook_summary"), hookInfos: [{ command: "zerodb hook claude-code" }] }],
    [
      "an attachment with rendered text",
      c.attachment({ type: "date", date: "2026-11-30" }, "<system-reminder>\nToday's date is 2026-11-30.\n</system-reminder>"),
    ],
    ["a skill listing", c.attachment({ type: "skill_listing", content: "- dataviz: Use this skill whenever you chart" })],
    [
      "another hook's additional context",
      c.attachment({ type: "hook_additional_context", content: ["Remember to run the linter."], hookName: "SessionStart", hookEvent: "SessionStart" }),
    ],
    [
      "a progress line",
      {
        parentUuid: null,
        isSidechain: false,
        type: "progress",
        uuid: "00000000-0000-4000-8000-00000000aaaa",
        timestamp: "2026-01-01T00:00:00.000Z",
        data: { type: "bash_progress", output: "…" },
        toolUseID: "toolu_01",
      },
    ],
    [
      "an isMeta user line (command caveat)",
      c.user("<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>", {
        isMeta: true,
      }),
    ],
    ["local command output", c.user("<local-command-stdout>Set model to opus</local-command-stdout>")],
    ["an interruption marker", c.user([{ type: "text", text: "[Request interrupted by user for tool use]" }])],
  ];
  for (const [what, line] of cases) {
    test(what, () => expect(classOf(line)).toEqual({ kind: "system", noise: "bookkeeping" }));
  }
});

describe("zerodb's own output", () => {
  const c = conversation(SID, CWD);
  test("a call of a zerodb tool, and its result, found by the tool_use id", () => {
    const call = c.assistant([{ type: "tool_use", id: "toolu_s1", name: "mcp__zerodb__search", input: { query: "deploy" } }]);
    expect(classOf(call)).toEqual({ kind: "tool_call", noise: "zerodb" });
    const result = c.toolResult(
      "toolu_s1",
      '{"hits":[{"lsn":3,"kind":"turn","session":"app-1a2b3c4d","role":"note","snippet":"[deploy] is blue-green","score":1}]}',
    );
    expect(classOf(result, { toolu_s1: "mcp__zerodb__search" })).toEqual({ kind: "tool_result", noise: "zerodb" });
    // The same text answering another tool is an ordinary result.
    expect(classOf(result, { toolu_s1: "mcp__other__search" })).toEqual({ kind: "tool_result" });
    expect(classOf(result)).toEqual({ kind: "tool_result" });
  });

  test("a line calling zerodb and another tool stays findable", () => {
    const both = c.assistant([
      { type: "tool_use", id: "toolu_a", name: "mcp__zerodb__recall", input: {} },
      { type: "tool_use", id: "toolu_b", name: "Bash", input: { command: "fly deploy" } },
    ]);
    expect(classOf(both)).toEqual({ kind: "tool_call" });
  });

  test("the SessionStart context, as an attachment, as hook output, and as a system or user line in other versions", () => {
    const additional = c.attachment(
      { type: "hook_additional_context", content: [CONTEXT], hookName: "SessionStart", toolUseID: "SessionStart", hookEvent: "SessionStart" },
      `<system-reminder>\nSessionStart hook additional context: ${CONTEXT}\n</system-reminder>`,
    );
    expect(classOf(additional)).toEqual({ kind: "system", noise: "zerodb" });
    const stdout = JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: CONTEXT } });
    expect(
      classOf(c.attachment({ type: "hook_success", hookName: "SessionStart:startup", hookEvent: "SessionStart", content: "", stdout, exitCode: 0 })),
    ).toEqual({ kind: "system", noise: "zerodb" });
    expect(classOf(c.system(`SessionStart:startup hook success: ${stdout}`))).toEqual({ kind: "system", noise: "zerodb" });
    expect(classOf(c.user(`<session-start-hook>${CONTEXT}</session-start-hook>`))).toEqual({ kind: "system", noise: "zerodb" });
    expect(classOf(c.user(`SessionStart hook additional context: ${CONTEXT}`, { isMeta: true }))).toEqual({ kind: "system", noise: "zerodb" });
  });

  test("a hook's output handed to the model as a user line is system text search finds; zerodb's own context in that shape is not", () => {
    const compile =
      "<system-reminder>\nPostToolUse:Write hook additional context: [COMPILE ERROR]\nerror: cannot invoke remote function Access.get/2 inside a guard\n</system-reminder>";
    expect(classOf(c.user(compile, { isMeta: true }))).toEqual({ kind: "system" });
    expect(
      classOf(c.user("<system-reminder>\nPostToolUse:Edit hook additional context: [CREDO] Function is too complex\n</system-reminder>", { isMeta: true })),
    ).toEqual({
      kind: "system",
    });
    expect(classOf(c.user(`<system-reminder>\nSessionStart hook additional context: ${CONTEXT}\n</system-reminder>`, { isMeta: true }))).toEqual({
      kind: "system",
      noise: "zerodb",
    });
  });

  test("a prompt that only mentions the header is still a prompt", () => {
    expect(classOf(c.user(`why does my context start with "${CONTEXT_HEADER}"?`))).toEqual({ kind: "prompt" });
  });
});

describe("tool names across runs", () => {
  /** A transcript whose zerodb calls and results are far apart and interleaved with other tools. */
  function transcript(path: string): number {
    const c = conversation(SID, CWD);
    const lines: unknown[] = [c.user("remember the deploy, then look it up")];
    for (let i = 0; i < 6; i++) {
      lines.push(
        c.assistant([
          { type: "tool_use", id: `toolu_z${i}`, name: i % 2 === 0 ? "mcp__zerodb__remember" : "mcp__zerodb__search", input: { content: `note ${i}` } },
        ]),
      );
      lines.push(c.assistant([{ type: "tool_use", id: `toolu_b${i}`, name: "Bash", input: { command: `echo ${i} toolu_z${i}` } }]));
      lines.push({
        type: "progress",
        uuid: `00000000-0000-4000-8000-0000000b${i}000`,
        parentUuid: null,
        toolUseID: `toolu_z${i}`,
        data: { type: "mcp_progress" },
      });
      lines.push(c.toolResult(`toolu_b${i}`, "x".repeat(300)));
      lines.push(c.toolResult(`toolu_z${i}`, `{"session":"app-1a2b3c4d","lsn":${i + 1},"duplicate":false,"redacted":0}`));
      lines.push(c.assistant([{ type: "text", text: `done ${i}` }]));
    }
    writeFileSync(path, lines.map(jsonl).join(""));
    return lines.length;
  }

  /** The meta of every line from line `from` on, read the way one run reads them (a lookback of `lookback` bytes). */
  function run(path: string, from: number, opts: { lookback?: number; block?: number } = {}): Record<string, unknown>[] {
    using reader = openLines(path);
    const all = [...reader.lines(0)];
    const tools = toolNames((buf, offset) => reader.readAt(buf, offset), all[from]!.start, opts);
    return all.slice(from).map((line, i) => {
      const made = lineEntries(Buffer.from(line.bytes).toString("utf8"), {
        idemPrefix: SID,
        position: from + i,
        redact: true,
        toolName: (id) => tools.name(id, line.start),
      });
      tools.note(made.uses, line.start);
      return made.entries[0]!.meta;
    });
  }

  test("a result gets the same meta whichever line its run started at", () => {
    using dir = tempDir();
    const path = join(dir.path, `${SID}.jsonl`);
    const n = transcript(path);
    const whole = run(path, 0);
    expect(whole.filter((m) => m.noise === "zerodb").map((m) => [m.position, m.kind])).toEqual(
      [0, 1, 2, 3, 4, 5].flatMap((i) => [
        [1 + i * 6, "tool_call"],
        [5 + i * 6, "tool_result"],
      ]),
    );
    for (let from = 1; from < n; from++) {
      expect(run(path, from)).toEqual(whole.slice(from));
      // Read back in steps shorter than a line: lines are pieced together across reads.
      expect(run(path, from, { block: 97 })).toEqual(whole.slice(from));
    }
  });

  test("with a short lookback, a tool_use out of reach is out of reach from every run", () => {
    using dir = tempDir();
    const path = join(dir.path, `${SID}.jsonl`);
    const n = transcript(path);
    // Between a zerodb call and its result lie about 1.3 KB: a 1 KB lookback misses each one.
    const zerodbResults = (metas: Record<string, unknown>[]) => metas.filter((m) => m.kind === "tool_result" && m.noise === "zerodb").length;
    const near = run(path, 0, { lookback: 1024 });
    expect(zerodbResults(near)).toBe(0);
    const wide = run(path, 0, { lookback: 4096 });
    expect(zerodbResults(wide)).toBe(6);
    for (let from = 1; from < n; from++) {
      expect(run(path, from, { lookback: 1024, block: 97 })).toEqual(near.slice(from));
      expect(run(path, from, { lookback: 4096, block: 97 })).toEqual(wide.slice(from));
    }
  });
});
