/**
 * Regression for "Search that finds what was said" (DESIGN.md 11, "Noise"):
 * a real `claude -p` session, offline against a scripted Messages API on
 * 127.0.0.1 (HARNESSES.md), with zerodb connected as its MCP server and its
 * capture hooks installed. The model remembers a note, then searches for it.
 * Captured back, zerodb's own calls, results and SessionStart context are
 * `noise: "zerodb"`, Claude Code's bookkeeping is `noise: "bookkeeping"`, and
 * the prompt and replies are plain turns of their kind.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { projectSession } from "../../src/project.ts";
import { harnessBin } from "../harness/_clis.ts";
import { tempDir } from "../helpers.ts";
import { type ScriptedBlock, type StoredTurn, logLines, onlyCaptureSession, readSession, runClaudeOffline, runJson, scriptedMessagesApi } from "./_fixtures.ts";

const NOTE = "The deploy key rotates every Tuesday (quokka-7)";

/**
 * A Messages API scripted by how many tool results the conversation holds:
 * load zerodb's tools (Claude Code defers MCP tools behind ToolSearch), call
 * remember, call search, then answer.
 */
function scriptedApi() {
  const steps: ScriptedBlock[][] = [
    [{ text: "Loading the memory tools." }, { tool: "ToolSearch", input: { query: "select:mcp__zerodb__remember,mcp__zerodb__search" } }],
    [{ text: "Writing it down." }, { tool: "mcp__zerodb__remember", input: { content: NOTE } }],
    [{ tool: "mcp__zerodb__search", input: { query: "quokka-7 rotates" } }],
  ];
  return scriptedMessagesApi((body) => {
    const results = body.messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => (b as { type?: string }).type === "tool_result").length;
    return steps[results] ?? [{ text: "The deploy key rotates every Tuesday." }];
  });
}

/** The transcript lines Claude Code wrote, parsed. */
function transcriptLines(configDir: string): Record<string, any>[] {
  const projects = join(configDir, "projects");
  const files = readdirSync(projects).flatMap((d) =>
    readdirSync(join(projects, d))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(projects, d, f)),
  );
  expect(files.length).toBe(1);
  return readFileSync(files[0]!, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

test("a real claude -p session that remembers and searches: zerodb's own output and Claude Code's bookkeeping are marked as noise", async () => {
  const claude = await harnessBin("claude");
  if (!claude) return; // harnessBin said why
  using dir = tempDir();
  mkdirSync(join(dir.path, ".claude"));
  const cwd = join(dir.path, "project");
  mkdirSync(cwd);
  await runJson(["connect", "--capture", "--harness", "claude-code"], { home: dir.path });
  // Something for SessionStart to hand over, so its context is in the transcript.
  await runJson(["fact", "set", `project/${projectSession(cwd)}/deploy`, JSON.stringify("blue-green on fly")], { home: dir.path });
  using api = scriptedApi();
  // No ZERODB_HOME: the hook and MCP commands connect wrote pin the home.
  const { code, stdout, stderr } = await runClaudeOffline(claude, {
    home: dir.path,
    cwd,
    api,
    args: [
      "remember that the deploy key rotates every Tuesday, then look it up",
      "--allowedTools",
      "ToolSearch",
      "mcp__zerodb__remember",
      "mcp__zerodb__search",
    ],
  });
  expect({ code, stdout: stdout.trim(), stderr }).toEqual({ code: 0, stdout: "The deploy key rotates every Tuesday.", stderr: "" });
  // SessionEnd may leave a tail to a detached catch-up: sync waits for nothing and leaves nothing behind.
  await runJson(["capture", "sync"], { home: dir.path, env: { CLAUDE_CONFIG_DIR: join(dir.path, ".claude") } });

  const lines = transcriptLines(join(dir.path, ".claude"));
  const turns = await readSession(dir.path, await onlyCaptureSession(dir.path));
  expect(turns.map((t) => t.meta.position)).toEqual(lines.map((_, i) => i));
  const at = (pred: (line: Record<string, any>) => boolean): StoredTurn[] => turns.filter((t) => pred(lines[t.meta.position]!));
  const blocks = (line: Record<string, any>): { type: string; name?: string; id?: string; tool_use_id?: string }[] =>
    Array.isArray(line.message?.content) ? line.message.content : [];
  const classOf = (t: StoredTurn) => ({ kind: t.meta.kind, noise: t.meta.noise });

  // zerodb's tools: the calls, and the results that answer them (found by tool_use id).
  const zerodbIds = new Set(
    lines.flatMap((l) =>
      blocks(l)
        .filter((b) => b.type === "tool_use" && b.name?.startsWith("mcp__zerodb__"))
        .map((b) => b.id),
    ),
  );
  expect(zerodbIds.size).toBe(2);
  const calls = at((l) => l.type === "assistant" && blocks(l).some((b) => b.type === "tool_use" && zerodbIds.has(b.id)));
  const results = at((l) => l.type === "user" && blocks(l).some((b) => b.type === "tool_result" && zerodbIds.has(b.tool_use_id)));
  expect(calls.map(classOf)).toEqual([
    { kind: "tool_call", noise: "zerodb" },
    { kind: "tool_call", noise: "zerodb" },
  ]);
  expect(results.map(classOf)).toEqual([
    { kind: "tool_result", noise: "zerodb" },
    { kind: "tool_result", noise: "zerodb" },
  ]);
  // The search's result holds the note it found: exactly the echo search must not find again.
  expect(results[1]!.content).toContain("quokka-7");

  // The SessionStart context Claude Code wrote back (as hook output and as additional context).
  const context = at((l) => l.type === "attachment" && JSON.stringify(l.attachment).includes("# zerodb memory of this project"));
  expect(context.length).toBeGreaterThan(0);
  expect(context.some((t) => t.meta.subtype === "hook_additional_context")).toBe(true);
  for (const t of context) expect(classOf(t)).toEqual({ kind: "system", noise: "zerodb" });

  // Bookkeeping: metadata lines, the other attachments (skill listing among them), system lines.
  const bookkeeping = at(
    (l) =>
      typeof l.uuid !== "string" ||
      l.type === "system" ||
      (l.type === "attachment" && !JSON.stringify(l.attachment).includes("# zerodb memory of this project")),
  );
  expect(bookkeeping.length).toBeGreaterThan(5);
  expect(bookkeeping.some((t) => t.meta.type === "queue-operation")).toBe(true);
  expect(bookkeeping.some((t) => t.meta.subtype === "skill_listing")).toBe(true);
  for (const t of bookkeeping)
    expect({ type: t.meta.type, subtype: t.meta.subtype, ...classOf(t) }).toEqual({
      type: t.meta.type,
      subtype: t.meta.subtype,
      kind: "system",
      noise: "bookkeeping",
    });

  // What was said stays: the prompt, the replies, and the other tool's call and result.
  expect(at((l) => l.type === "user" && typeof l.message?.content === "string").map((t) => [t.content, classOf(t)])).toEqual([
    ["remember that the deploy key rotates every Tuesday, then look it up", { kind: "prompt", noise: undefined }],
  ]);
  const replies = at((l) => l.type === "assistant" && blocks(l).every((b) => b.type === "text"));
  expect(replies.map((t) => [t.content, classOf(t)])).toEqual(
    ["Loading the memory tools.", "Writing it down.", "The deploy key rotates every Tuesday."].map((c) => [c, { kind: "reply", noise: undefined }]),
  );
  const otherTool = (l: Record<string, any>) =>
    typeof l.uuid === "string" &&
    blocks(l).some((b) => (b.type === "tool_use" && b.name === "ToolSearch") || (b.type === "tool_result" && !zerodbIds.has(b.tool_use_id)));
  expect(at(otherTool).map(classOf)).toEqual([
    { kind: "tool_call", noise: undefined },
    { kind: "tool_result", noise: undefined },
  ]);
  // Every turn says its kind; only system lines and zerodb's tool turns are noise.
  for (const t of turns) {
    expect(["prompt", "reply", "tool_call", "tool_result", "system"]).toContain(t.meta.kind);
    if (t.meta.noise === "bookkeeping") expect(t.meta.kind).toBe("system");
  }
  // The next search for the note finds the note first and never zerodb's own echoes of it (DESIGN.md 11, "Noise").
  const noise = new Set(turns.filter((t) => t.meta.noise !== undefined).map((t) => t.lsn));
  const found = await runJson<{ hits: { lsn: number; role: string; snippet: string }[] }>(["search", "quokka-7", "rotates"], { home: dir.path });
  expect(found.hits.length).toBeGreaterThan(0);
  expect(found.hits[0]!.role).toBe("note");
  expect(found.hits[0]!.snippet).toContain("[quokka]-[7]");
  expect(found.hits.filter((h) => noise.has(h.lsn))).toEqual([]);
  const everything = await runJson<{ hits: { lsn: number }[] }>(["search", "quokka-7", "rotates", "--include-noise"], { home: dir.path });
  expect(everything.hits.map((h) => h.lsn)).toContain(results[1]!.lsn);
  expect(await logLines(dir.path)).toEqual([]);
}, 120_000);
