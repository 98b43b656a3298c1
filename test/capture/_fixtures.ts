/**
 * Claude Code as the capture tests see it: transcripts in its JSONL format
 * (HARNESSES.md, checked against a real 2.1 session), hook input on stdin,
 * and the built binary run the way Claude Code runs a hook.
 */
import { Database } from "bun:sqlite";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunResult, ZERODB, runJson, runZ } from "../helpers.ts";

export { ZERODB, runJson, runZ };

/** A throwaway Claude Code layout: config dir, one project dir, transcripts named `<session id>.jsonl`. */
export interface ClaudeLayout {
  home: string;
  configDir: string;
  /** The working directory Claude Code runs in. */
  cwd: string;
  projectDir: string;
  transcript(sessionId: string): string;
  subagent(sessionId: string, agentId: string): string;
}

/** Creates a layout under `root`, the project being `root/<name>`. */
export function claudeLayout(root: string, name = "app"): ClaudeLayout {
  const configDir = join(root, "claude-config");
  const cwd = join(root, "work", name);
  mkdirSync(cwd, { recursive: true });
  const projectDir = join(configDir, "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(projectDir, { recursive: true });
  return {
    home: root,
    configDir,
    cwd,
    projectDir,
    transcript: (id) => join(projectDir, `${id}.jsonl`),
    subagent: (id, agent) => {
      const dir = join(projectDir, id, "subagents");
      mkdirSync(dir, { recursive: true });
      return join(dir, `agent-${agent}.jsonl`);
    },
  };
}

let counter = 0;
const uuid = () => `00000000-0000-4000-8000-${(++counter).toString(16).padStart(12, "0")}`;

/** Fields every message line carries. */
function base(sessionId: string, cwd: string, type: string, parentUuid: string | null) {
  return {
    parentUuid,
    isSidechain: false,
    userType: "external",
    cwd,
    sessionId,
    version: "2.1.332",
    gitBranch: "main",
    type,
    uuid: uuid(),
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(),
  };
}

/** Builds lines of one conversation, chaining parentUuid like Claude Code does. */
export function conversation(sessionId: string, cwd: string) {
  let parent: string | null = null;
  let msg = 0;
  const link = <T extends { uuid: string }>(line: T): T => {
    parent = line.uuid;
    return line;
  };
  return {
    user: (content: string | unknown[], extra: Record<string, unknown> = {}) =>
      link({ ...base(sessionId, cwd, "user", parent), message: { role: "user", content }, ...extra }),
    assistant: (content: unknown[], extra: Record<string, unknown> = {}) =>
      link({
        ...base(sessionId, cwd, "assistant", parent),
        message: {
          id: `msg_${++msg}`,
          type: "message",
          role: "assistant",
          model: "claude-test",
          content,
          stop_reason: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
        ...extra,
      }),
    toolResult: (toolUseId: string, content: string | unknown[], isError = false) =>
      link({
        ...base(sessionId, cwd, "user", parent),
        message: { role: "user", content: [{ tool_use_id: toolUseId, type: "tool_result", content, is_error: isError }] },
        toolUseResult: { stdout: typeof content === "string" ? content : "", stderr: "", interrupted: false },
      }),
    system: (content: string, subtype = "informational") => link({ ...base(sessionId, cwd, "system", parent), subtype, content, level: "info" }),
    attachment: (attachment: Record<string, unknown>, rendered?: string) =>
      link({ ...base(sessionId, cwd, "attachment", parent), attachment, ...(rendered ? { rendered: [{ content: rendered }], renderedRole: "system" } : {}) }),
    /** Metadata lines have no uuid. */
    summary: (summary: string) => ({ type: "summary", summary, leafUuid: parent }),
    queue: (content: string) => ({ type: "queue-operation", operation: "enqueue", timestamp: "2026-01-01T00:00:00.000Z", sessionId, content }),
    lastPrompt: (lastPrompt: string) => ({ type: "last-prompt", lastPrompt, leafUuid: parent, sessionId }),
  };
}

/** One JSONL line. */
export function jsonl(line: unknown): string {
  return `${JSON.stringify(line)}\n`;
}

/** Appends lines to a transcript (creating it). */
export function appendLines(path: string, lines: unknown[]): void {
  appendFileSync(path, lines.map(jsonl).join(""));
}

/** Writes a transcript of `n` simple user/assistant lines; returns the lines. */
export function writeTranscript(path: string, sessionId: string, cwd: string, n: number, word = "line"): unknown[] {
  const c = conversation(sessionId, cwd);
  const lines = Array.from({ length: n }, (_, i) =>
    i % 2 === 0 ? c.user(`${word} ${i} question`) : c.assistant([{ type: "text", text: `${word} ${i} answer` }]),
  );
  writeFileSync(path, lines.map(jsonl).join(""));
  return lines;
}

/** The hook input Claude Code writes on stdin. */
export function hookInput(event: string, opts: { sessionId: string; transcript: string; cwd: string; [k: string]: unknown }): string {
  const { sessionId, transcript, ...rest } = opts;
  return JSON.stringify({ session_id: sessionId, transcript_path: transcript, permission_mode: "default", hook_event_name: event, ...rest });
}

/** Runs `zerodb hook claude-code` as Claude Code does (event JSON on stdin, cwd the session's). */
export function runHook(layout: ClaudeLayout, event: string, sessionId: string, opts: { env?: Record<string, string>; extra?: Record<string, unknown> } = {}) {
  const stdin = hookInput(event, { sessionId, transcript: layout.transcript(sessionId), cwd: layout.cwd, ...opts.extra });
  return runZ(["hook", "claude-code"], { home: layout.home, stdin, cwd: layout.cwd, env: { CLAUDE_CONFIG_DIR: layout.configDir, ...opts.env } });
}

/** Starts a hook without waiting, for races and kills. */
export function spawnHook(layout: ClaudeLayout, event: string, sessionId: string) {
  const stdin = hookInput(event, { sessionId, transcript: layout.transcript(sessionId), cwd: layout.cwd });
  return Bun.spawn([ZERODB, "hook", "claude-code"], {
    cwd: layout.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: layout.home, ZERODB_HOME: join(layout.home, "zerodb"), CLAUDE_CONFIG_DIR: layout.configDir },
    stdin: new Blob([stdin]),
    stdout: "ignore",
    stderr: "ignore",
  });
}

/** A stored turn as the tests look at it. */
export interface StoredTurn {
  lsn: number;
  session: string;
  role: string;
  content: string;
  meta: Record<string, any>;
  idem_key?: string;
}

/** Every live turn of a session, in LSN order, read page by page through the CLI. */
export async function readSession(home: string, session: string): Promise<StoredTurn[]> {
  const out: StoredTurn[] = [];
  let after = 0;
  for (let page = 0; page < 10_000; page++) {
    const r = await runJson<{ turns: StoredTurn[]; next: number | null }>(["read", "--session", session, "--after", String(after), "--limit", "1000"], {
      home,
    });
    out.push(...r.turns);
    if (r.next === null) return out;
    after = r.next;
  }
  throw new Error("too many pages");
}

/** The sessions of the store. */
export async function sessionNames(home: string): Promise<string[]> {
  const r = await runJson<{ sessions: { name: string }[] }>(["sessions", "--limit", "1000"], { home });
  return r.sessions.map((s) => s.name);
}

/** How many live turns a session holds (without reading them). */
export async function turnCount(home: string, session: string): Promise<number> {
  const r = await runJson<{ sessions: { name: string; turns: number }[] }>(["sessions", "--prefix", session, "--limit", "1"], { home });
  return r.sessions[0]?.name === session ? r.sessions[0].turns : 0;
}

/** The one capture session in the store (the tests that use it capture a single harness session). */
export async function onlyCaptureSession(home: string): Promise<string> {
  const names = (await sessionNames(home)).filter((n) => n.includes("/"));
  if (names.length !== 1) throw new Error(`expected one capture session, found ${JSON.stringify(names)}`);
  return names[0]!;
}

/** The data dir of a test home. */
export function dataDir(home: string): string {
  return join(home, "zerodb", "data");
}

/** The lines of capture.log (none when it does not exist). */
export async function logLines(home: string): Promise<string[]> {
  const f = Bun.file(join(home, "zerodb", "logs", "capture.log"));
  if (!(await f.exists())) return [];
  return (await f.text()).split("\n").filter((l) => l !== "");
}

/** Asserts-friendly view: idempotency keys in order, and any key seen twice. */
export function keysOf(turns: StoredTurn[]): { keys: string[]; duplicates: string[] } {
  const keys = turns.map((t) => t.idem_key ?? "");
  const seen = new Set<string>();
  const duplicates = keys.filter((k) => {
    if (seen.has(k)) return true;
    seen.add(k);
    return false;
  });
  return { keys, duplicates };
}

/** The keys a transcript of `n` single-chunk lines must end up with, in order. */
export function expectedKeys(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}:${i}:0`);
}

/** Opens the test store's database directly (for what no command does, such as deleting a cursor). */
export function openDb(home: string): Database {
  return new Database(join(dataDir(home), "zerodb.sqlite"));
}

/** One content block a scripted model answers with: text, or a call of a tool. */
export type ScriptedBlock = { text: string } | { tool: string; input: object };

/**
 * A stand-in Messages API on 127.0.0.1 for a real `claude -p` (HARNESSES.md
 * "Running a real Claude Code session offline"): `script` picks the blocks
 * of each streamed answer from the request; an answer with a tool call stops
 * for `tool_use`, else it ends the turn. Non-streamed calls (titles) get "title".
 */
export function scriptedMessagesApi(script: (body: { tools?: unknown[]; messages: { content: unknown }[] }) => ScriptedBlock[]) {
  let n = 0;
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (new URL(req.url).pathname.endsWith("/count_tokens")) return Response.json({ input_tokens: 10 });
      const body = (await req.json()) as { model: string; stream?: boolean; tools?: unknown[]; messages: { content: unknown }[] };
      const id = `msg_${++n}`;
      if (!body.stream) {
        return Response.json({
          id,
          type: "message",
          role: "assistant",
          model: body.model,
          content: [{ type: "text", text: "title" }],
          stop_reason: "end_turn",
          usage: { input_tokens: 1, output_tokens: 1 },
        });
      }
      const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
      const blocks = script(body);
      let out = ev("message_start", {
        message: {
          id,
          type: "message",
          role: "assistant",
          model: body.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      });
      blocks.forEach((b, index) => {
        if ("text" in b) {
          out += ev("content_block_start", { index, content_block: { type: "text", text: "" } });
          out += ev("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
        } else {
          out += ev("content_block_start", { index, content_block: { type: "tool_use", id: `toolu_${n}_${index}`, name: b.tool, input: {} } });
          out += ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
        }
        out += ev("content_block_stop", { index });
      });
      const stop = blocks.some((b) => "tool" in b) ? "tool_use" : "end_turn";
      out += ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
      out += ev("message_stop", {});
      return new Response(out, { headers: { "content-type": "text/event-stream" } });
    },
  });
}

/**
 * Runs a real `claude -p` offline (HARNESSES.md): HOME `home` (whose
 * `.claude` is its config dir), in `cwd`, every model call going to the
 * stand-in Messages API `api` (scriptedMessagesApi), nothing else sent anywhere.
 * `args` follow `-p` (the prompt, then options such as --allowedTools).
 */
export async function runClaudeOffline(claude: string, opts: { home: string; cwd: string; api: { url: URL }; args: string[] }): Promise<RunResult> {
  const proc = Bun.spawn([claude, "-p", ...opts.args], {
    cwd: opts.cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: opts.home,
      ANTHROPIC_BASE_URL: opts.api.url.origin,
      ANTHROPIC_API_KEY: "offline-test-key",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}
