/**
 * One Codex CLI rollout line as a turn (HARNESSES.md "Codex CLI"): lines are
 * `{timestamp, ordinal, type, payload}`. `response_item` lines are the
 * conversation (messages, reasoning, tool calls and their outputs); the rest
 * (session_meta, turn_context, event_msg, compacted, token records, and any
 * type a later version adds) are kept as notes. Codex writes the same text
 * in two or three lines (a response_item, an event_msg, and `compacted`
 * repeats user messages): every line is stored, but only the response_item
 * is a findable turn; the copies are bookkeeping, which search leaves out by
 * default (DESIGN.md 11). Pure: no I/O, never throws.
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
