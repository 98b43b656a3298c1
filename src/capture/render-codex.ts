/**
 * One Codex CLI rollout line as a turn (HARNESSES.md "Codex CLI"): lines are
 * `{timestamp, ordinal, type, payload}`. `response_item` lines are the
 * conversation (messages, reasoning, tool calls and their outputs); the rest
 * (session_meta, turn_context, event_msg, compacted, token records, and any
 * type a later version adds) are kept as notes. Codex writes the same text
 * in two or three lines (a response_item, an event_msg, and `compacted`
 * repeats user messages): every line is stored, but only the response_item
 * is a findable turn; the copies are bookkeeping, which search leaves out by
 * default (DESIGN.md 11). One event_msg is a turn of its own: the
 * `exec_command_end` of a command whose output no single function_call_output
 * holds (commandEnd). Pure: no I/O, never throws.
 */
import type { Shape, ToolUse } from "./turn-kind.ts";
import type { Rendered } from "./render.ts";

type Json = Record<string, unknown>;

const SHORT = 256;
/** Context Codex injects as a user message (nobody typed it). */
const INJECTED_USER = /^\s*<(?:environment_context|user_instructions|user_shell_command|turn_aborted)\b/;

function bookkeeping(metadata: boolean): Shape {
  return { kind: "system", bookkeeping: true, metadata, uses: [], results: [] };
}

/** Renders one rollout line's text (without its newline). */
export function renderCodexLine(text: string): Rendered {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { role: "note", content: text, meta: { type: "unparsable" }, images: [], shape: { ...bookkeeping(false), bookkeeping: false } };
  }
  if (!isObject(parsed)) return { role: "note", content: text, meta: { type: "unknown" }, images: [], shape: { ...bookkeeping(false), bookkeeping: false } };
  try {
    const type = typeof parsed.type === "string" ? parsed.type : "unknown";
    const payload = isObject(parsed.payload) ? parsed.payload : {};
    const meta: Json = { type: short(type) };
    if (typeof parsed.timestamp === "string") meta.timestamp = short(parsed.timestamp);
    if (typeof parsed.ordinal === "number") meta.ordinal = parsed.ordinal;
    if (typeof payload.type === "string") meta.subtype = short(payload.type);
    if (type === "response_item") return responseItem(payload, meta);
    if (type === "event_msg" && payload.type === "exec_command_end") {
      const end = commandEnd(payload, meta);
      if (end !== undefined) return end;
    }
    // Everything else is Codex's own record: kept whole, never a turn of its own.
    const { type: _t, timestamp: _ts, ordinal: _o, ...rest } = parsed;
    return { role: "note", content: `[${type}${meta.subtype ? ` ${meta.subtype}` : ""}] ${JSON.stringify(rest)}`, meta, images: [], shape: bookkeeping(true) };
  } catch {
    // Nested too deep for JSON.stringify: kept verbatim (as render.ts does, issue 9).
    return { role: "note", content: text, meta: { type: "unrenderable" }, images: [], shape: { ...bookkeeping(false), bookkeeping: false } };
  }
}

function responseItem(p: Json, meta: Json): Rendered {
  const none = { images: [] };
  if (typeof p.id === "string") meta.item_id = short(p.id);
  switch (p.type) {
    case "message": {
      const role = typeof p.role === "string" ? p.role : "unknown";
      meta.role = short(role);
      const content = messageText(p.content);
      if (role === "assistant") return { role: "assistant", content, meta, ...none, shape: { kind: "reply", bookkeeping: false, uses: [], results: [] } };
      if (role === "user" && !INJECTED_USER.test(content))
        return { role: "user", content, meta, ...none, shape: { kind: "prompt", bookkeeping: false, uses: [], results: [] } };
      // developer and system messages, and context injected as a user message.
      return { role: role === "user" ? "user" : "system", content, meta, ...none, shape: bookkeeping(false) };
    }
    case "reasoning": {
      const summary = textsOf(p.summary);
      const body = textsOf(p.content);
      const parts = [...summary, ...body];
      const content = parts.length > 0 ? `[reasoning]\n${parts.join("\n\n")}` : "[reasoning, encrypted]";
      return { role: "assistant", content, meta, ...none, shape: { kind: "reply", bookkeeping: false, uses: [], results: [] } };
    }
    case "function_call":
    case "custom_tool_call":
    case "local_shell_call":
    case "web_search_call":
    case "tool_search_call": {
      const name = typeof p.name === "string" ? p.name : String(p.type).replace(/_call$/, "");
      const id = typeof p.call_id === "string" ? p.call_id : typeof p.id === "string" ? p.id : "";
      meta.tools = [short(name)];
      if (id) meta.tool_use_ids = [short(id)];
      const input = p.arguments ?? p.input ?? p.action ?? {};
      const uses: ToolUse[] = [{ id, name }];
      return {
        role: "assistant",
        content: `[tool_use ${name}]\n${typeof input === "string" ? input : JSON.stringify(input)}`,
        meta,
        ...none,
        shape: { kind: "tool_call", bookkeeping: false, uses, results: [] },
      };
    }
    case "function_call_output":
    case "custom_tool_call_output":
    case "tool_search_output": {
      const id = typeof p.call_id === "string" ? p.call_id : "";
      if (id) meta.tool_use_ids = [short(id)];
      const out = outputText(p.output);
      return {
        role: "tool",
        content: `[tool_result${out.error ? " error" : ""}]\n${out.text}`,
        meta,
        ...none,
        shape: { kind: "tool_result", bookkeeping: false, uses: [], results: [id] },
      };
    }
    default: {
      const { type: _t, ...rest } = p;
      return { role: "note", content: `[response_item ${String(p.type)}] ${JSON.stringify(rest)}`, meta, ...none, shape: bookkeeping(true) };
    }
  }
}

/**
 * The `source`s (Codex's ExecCommandSource, snake_case) of an exec_command_end
 * whose output is in no function_call_output whole:
 * - `unified_exec_startup`, `unified_exec_interaction`: the unified exec tool
 *   (`exec_command`, then `write_stdin` polls) returns what the command printed
 *   since the last poll, so its output is cut over several outputs, while the
 *   end event holds all of it (as Codex stores it: at most 10,000 bytes, its
 *   PERSISTED_EXEC_AGGREGATED_OUTPUT_MAX_BYTES);
 * - `user_shell`: a command the user ran (`!cmd`) is no function call; its
 *   output is in a `<user_shell_command>` user message, which is context
 *   Codex injects and so bookkeeping here.
 * Not `agent`, the default of a line without `source`: the classic `shell`
 * and `local_shell` tools answer with one function_call_output holding the
 * whole output (Codex's ToolEmitter::Shell, format_exec_output_for_model), so the end event is a
 * copy, and a findable copy would be found twice. Nor a source a later Codex
 * adds: it stays a note until its output is known not to be elsewhere.
 */
const COMMAND_SOURCES = new Set(["unified_exec_startup", "unified_exec_interaction", "user_shell"]);
/** A shell's name (a path's last part), as Codex wraps a script: `["/bin/zsh", "-lc", script]`. */
const SHELL = /(?:^|[\\/])(?:sh|bash|zsh|dash|ksh|mksh|ash|fish)(?:\.exe)?$/;

/**
 * A command's end as the tool result of its call (`call_id` is the
 * exec_command call's): the command as the user would type it, then its
 * output; or undefined for a source whose output is elsewhere (COMMAND_SOURCES).
 */
function commandEnd(p: Json, meta: Json): Rendered | undefined {
  if (typeof p.source !== "string" || !COMMAND_SOURCES.has(p.source)) return undefined;
  const id = typeof p.call_id === "string" ? p.call_id : "";
  if (id) meta.tool_use_ids = [short(id)];
  if (typeof p.exit_code === "number") meta.exit_code = p.exit_code;
  if (typeof p.cwd === "string") meta.cwd = short(p.cwd);
  meta.source = short(p.source);
  const error = typeof p.exit_code === "number" && p.exit_code !== 0;
  const command = commandLine(p.command);
  const output = typeof p.aggregated_output === "string" ? p.aggregated_output : streams(p.stdout, p.stderr);
  return {
    role: "tool",
    content: `[tool_result${error ? " error" : ""}]\n${command === "" ? "" : `$ ${command}\n`}${output}`,
    meta,
    images: [],
    shape: { kind: "tool_result", bookkeeping: false, uses: [], results: [id] },
  };
}

/** A command's argv as typed: the script of a `<shell> -lc|-c <script>` wrapper, else the words joined by spaces. */
function commandLine(command: unknown): string {
  if (typeof command === "string") return command;
  if (!Array.isArray(command)) return "";
  const argv = command.map((a) => (typeof a === "string" ? a : (JSON.stringify(a) ?? "")));
  if (argv.length === 3 && SHELL.test(argv[0]!) && (argv[1] === "-lc" || argv[1] === "-c")) return argv[2]!;
  return argv.join(" ");
}

/** stdout then stderr: the output of an end event without `aggregated_output`. */
function streams(stdout: unknown, stderr: unknown): string {
  const out = typeof stdout === "string" ? stdout : "";
  const err = typeof stderr === "string" ? stderr : "";
  return out !== "" && err !== "" && !out.endsWith("\n") ? `${out}\n${err}` : out + err;
}

/** A message's content: `input_text`/`output_text` parts as text; images named, not stored. */
function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined ? "" : JSON.stringify(content);
  return content
    .map((c) => {
      if (!isObject(c)) return JSON.stringify(c);
      if (typeof c.text === "string") return c.text;
      if (c.type === "input_image") return `[image${typeof c.image_url === "string" && !c.image_url.startsWith("data:") ? ` ${c.image_url}` : ""}]`;
      return `[${String(c.type)}] ${JSON.stringify(c)}`;
    })
    .join("\n\n");
}

function textsOf(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((x) => (isObject(x) && typeof x.text === "string" ? [x.text] : []));
}

/** A tool output: a string, `{content, success}`, or content parts. */
function outputText(output: unknown): { text: string; error: boolean } {
  if (typeof output === "string") return { text: output, error: false };
  if (isObject(output)) {
    const error = output.success === false;
    if (typeof output.content === "string") return { text: output.content, error };
    if (Array.isArray(output.content)) return { text: messageText(output.content), error };
    return { text: JSON.stringify(output), error };
  }
  if (Array.isArray(output)) return { text: messageText(output), error: false };
  return { text: output === undefined ? "" : JSON.stringify(output), error: false };
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function short(s: string): string {
  return (s.length > SHORT ? s.slice(0, SHORT) : s).toWellFormed();
}
