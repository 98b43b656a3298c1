/**
 * One opencode record as a turn (HARNESSES.md "opencode"; records come from
 * opencode.ts: `{record, session, message, part?}`). A message record is the
 * message's own bookkeeping (agent, model, tokens, cost, finish, error); its
 * parts are the conversation: a user's `text` is the prompt, an assistant's
 * `text` the reply, `reasoning` a reply marked as reasoning, a `tool` part a
 * call (its input) and then a result (its output or error), `file` an
 * attachment; `step-start`, `step-finish`, `snapshot`, `patch`, `compaction`,
 * `retry`, `agent` and types a later version adds are kept as bookkeeping
 * notes. Only fields that do not change once the message is finished are
 * read (a tool output pruned by compaction keeps its `time.compacted` out).
 * Pure: no I/O, never throws.
 */
import type { Shape, ToolUse } from "./turn-kind.ts";
import type { ImageBlock, Rendered } from "./render.ts";

type Json = Record<string, unknown>;

const SHORT = 256;

function bookkeeping(): Shape {
  return { kind: "system", bookkeeping: true, metadata: true, uses: [], results: [] };
}
const said = (kind: Shape["kind"]): Shape => ({ kind, bookkeeping: false, uses: [], results: [] });

/** Renders one record's text. */
export function renderOpencodeLine(text: string): Rendered {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { role: "note", content: text, meta: { type: "unparsable" }, images: [], shape: { ...bookkeeping(), bookkeeping: false, metadata: false } };
  }
  if (!isObject(parsed) || !isObject(parsed.message))
    return { role: "note", content: text, meta: { type: "unknown" }, images: [], shape: { ...bookkeeping(), bookkeeping: false, metadata: false } };
  try {
    const message = parsed.message;
    const session = isObject(parsed.session) ? parsed.session : {};
    const role = typeof message.role === "string" ? message.role : "unknown";
    const meta: Json = { harness: "opencode", role: short(role) };
    if (typeof session.id === "string") meta.session_id = short(session.id);
    if (typeof message.id === "string") meta.message_id = short(message.id);
    const time = isObject(message.time) ? message.time : {};
    if (typeof time.created === "number") meta.timestamp = new Date(time.created).toISOString();
    for (const k of ["agent", "modelID", "providerID", "parentID"] as const) if (typeof message[k] === "string") meta[k] = short(message[k] as string);
    if (isObject(message.model)) {
      const model = message.model;
      if (typeof model.modelID === "string") meta.modelID = short(model.modelID);
      if (typeof model.providerID === "string") meta.providerID = short(model.providerID);
    }
    if (message.summary === true) meta.summary = true;
    if (parsed.record === "message" || !isObject(parsed.part)) return messageRecord(message, role, meta);
    const part = parsed.part;
    if (typeof part.id === "string") meta.part_id = short(part.id);
    const type = typeof part.type === "string" ? part.type : "unknown";
    meta.type = short(type);
    if (type === "tool") return parsed.record === "tool_result" ? toolResult(part, meta) : toolCall(part, meta);
    return partRecord(part, type, role, meta);
  } catch {
    return { role: "note", content: text, meta: { type: "unrenderable" }, images: [], shape: { ...bookkeeping(), bookkeeping: false, metadata: false } };
  }
}

/** The message itself: who, which model, and how it ended. */
function messageRecord(m: Json, role: string, meta: Json): Rendered {
  meta.type = "message";
  const keep: Json = {};
  for (const k of ["agent", "mode", "modelID", "providerID", "model", "finish", "tokens", "cost", "error", "path", "summary"] as const) {
    // A user message's `summary` is a diff summary opencode rewrites later: not a fixed part of the record.
    if (k === "summary" && role !== "assistant") continue;
    if (m[k] !== undefined) keep[k] = m[k];
  }
  const err = isObject(m.error) ? m.error : undefined;
  if (err) meta.error = short(typeof err.name === "string" ? err.name : "error");
  const head = `[${role} message${typeof m.finish === "string" ? ` ${m.finish}` : ""}${err ? " error" : ""}]`;
  return { role: "note", content: `${head} ${JSON.stringify(keep)}`, meta, images: [], shape: bookkeeping() };
}

function partRecord(p: Json, type: string, role: string, meta: Json): Rendered {
  const none: ImageBlock[] = [];
  switch (type) {
    case "text": {
      const text = typeof p.text === "string" ? p.text : "";
      if (p.synthetic === true) meta.synthetic = true;
      if (p.ignored === true) meta.ignored = true;
      if (role === "assistant") return { role: "assistant", content: text, meta, images: none, shape: said("reply") };
      // Text opencode added to the user's message itself (a file's contents, a command's expansion) nobody typed.
      if (p.synthetic === true) return { role: "user", content: text, meta, images: none, shape: { ...said("system"), bookkeeping: true } };
      return { role: "user", content: text, meta, images: none, shape: said("prompt") };
    }
    case "reasoning": {
      const text = typeof p.text === "string" && p.text !== "" ? p.text : undefined;
      return { role: "assistant", content: text ? `[reasoning]\n${text}` : "[reasoning, encrypted]", meta, images: none, shape: said("reply") };
    }
    case "file": {
      const mime = typeof p.mime === "string" ? p.mime : "";
      const url = typeof p.url === "string" ? p.url : "";
      const name = typeof p.filename === "string" ? p.filename : "";
      if (mime) meta.mime = short(mime);
      const images = imageOf(url, mime);
      const where = url.startsWith("data:") ? "" : ` ${url}`;
      const source = isObject(p.source) && isObject(p.source.text) && typeof p.source.text.value === "string" ? `\n${p.source.text.value}` : "";
      return {
        role: role === "assistant" ? "assistant" : "user",
        content: `[file ${name || "(unnamed)"} ${mime}${where}]${source}`,
        meta,
        images,
        shape: { ...said("system"), bookkeeping: true },
      };
    }
    case "subtask": {
      for (const k of ["agent", "description"] as const) if (typeof p[k] === "string") meta[`subtask_${k}`] = short(p[k] as string);
      const prompt = typeof p.prompt === "string" ? p.prompt : "";
      return { role: "user", content: `[subtask ${typeof p.agent === "string" ? p.agent : ""}]\n${prompt}`, meta, images: none, shape: said("prompt") };
    }
    default: {
      // step-start, step-finish, snapshot, patch, compaction, retry, agent, and whatever a later version adds.
      const { id: _id, time: _time, ...rest } = p;
      return { role: "note", content: `[${type}] ${JSON.stringify(rest)}`, meta, images: none, shape: bookkeeping() };
    }
  }
}

function toolName(p: Json): string {
  return typeof p.tool === "string" ? p.tool : "unknown";
}

/** The name classify knows a tool by: opencode calls an MCP server's tools `<server>_<tool>`, Claude Code `mcp__<server>__<tool>`. */
function classifyName(name: string): string {
  return name.startsWith("zerodb_") ? `mcp__zerodb__${name.slice("zerodb_".length)}` : name;
}

function toolCall(p: Json, meta: Json): Rendered {
  const name = toolName(p);
  const id = typeof p.callID === "string" ? p.callID : "";
  const state = isObject(p.state) ? p.state : {};
  meta.tools = [short(name)];
  if (id) meta.tool_use_ids = [short(id)];
  const input = state.input ?? {};
  const uses: ToolUse[] = [{ id, name: classifyName(name) }];
  return {
    role: "assistant",
    content: `[tool_use ${name}]\n${typeof input === "string" ? input : JSON.stringify(input)}`,
    meta,
    images: [],
    shape: { kind: "tool_call", bookkeeping: false, uses, results: [] },
  };
}

function toolResult(p: Json, meta: Json): Rendered {
  const name = toolName(p);
  const id = typeof p.callID === "string" ? p.callID : "";
  const state = isObject(p.state) ? p.state : {};
  const status = typeof state.status === "string" ? state.status : "unknown";
  meta.tools = [short(name)];
  if (id) meta.tool_use_ids = [short(id)];
  meta.status = short(status);
  if (typeof state.title === "string") meta.title = short(state.title);
  let body: string;
  if (status === "completed") body = typeof state.output === "string" ? state.output : JSON.stringify(state.output ?? "");
  else if (status === "error") body = typeof state.error === "string" ? state.error : JSON.stringify(state.error ?? "");
  // pending or running in a finished message: the reply was abandoned before the tool answered.
  else body = "(no result: the reply ended before the tool answered)";
  const images = Array.isArray(state.attachments)
    ? state.attachments.flatMap((a) => (isObject(a) && typeof a.url === "string" ? imageOf(a.url, typeof a.mime === "string" ? a.mime : "") : []))
    : [];
  return {
    role: "tool",
    content: `[tool_result${status === "error" ? " error" : status === "completed" ? "" : ` ${status}`}]\n${body}`,
    meta,
    images,
    // The tool's name sits beside its result: classify needs no earlier line to know it.
    shape: { kind: "tool_result", bookkeeping: false, uses: [], results: [id], resultTools: [classifyName(name)] },
  };
}

/** The image a `data:image/...;base64,` URL holds, if it is one. */
function imageOf(url: string, mime: string): ImageBlock[] {
  const m = /^data:(image\/[A-Za-z0-9.+-]+);base64,/.exec(url);
  if (!m) return [];
  try {
    return [{ mediaType: m[1] ?? mime, data: Buffer.from(url.slice(m[0].length), "base64") }];
  } catch {
    return [];
  }
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function short(s: string): string {
  return (s.length > SHORT ? s.slice(0, SHORT) : s).toWellFormed();
}
