/**
 * One Gemini CLI chat line as a turn (HARNESSES.md "Gemini CLI", and the
 * chat recording service in @google/gemini-cli 0.61): the first line is the
 * session's metadata `{sessionId, projectHash, startTime, ...}`; message
 * lines are `{id, timestamp, type: user|gemini|info|error|warning, content,
 * toolCalls, thoughts, tokens, model}`, written again with the same id when
 * they change; `{"$set": {...}}` patches metadata (with `messages`, it
 * replaces the whole history); `{"$rewindTo": "<id>"}` cuts that message and
 * everything after it from the history.
 *
 * What a rewind means for capture: nothing stored is lost or changed (the
 * store is append-only). The `$rewindTo` line is stored as a note whose meta
 * says `rewind_to: <id>`: every message captured from this file before that
 * note, from the first with that id on, was rewound (when no earlier message
 * has the id, Gemini drops the whole history, and so does this rule). A
 * `$set` of messages re-appends the kept history: stored again, as
 * bookkeeping, so search finds each message once. Pure: no I/O, never throws.
 */
import type { Shape, ToolUse } from "./turn-kind.ts";
import { displayText, wholeResult } from "./gemini-whole.ts";
import type { Rendered } from "./render.ts";

type Json = Record<string, unknown>;

const SHORT = 256;
const MAX_LIST = 32;

function system(bookkeeping: boolean, metadata = false): Shape {
  return { kind: "system", bookkeeping, metadata, uses: [], results: [] };
}

/** Renders one chat line's text (without its newline). */
export function renderGeminiLine(text: string): Rendered {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { role: "note", content: text, meta: { type: "unparsable" }, images: [], shape: system(false) };
  }
  if (!isObject(parsed)) return { role: "note", content: text, meta: { type: "unknown" }, images: [], shape: system(false) };
  try {
    if (typeof parsed.$rewindTo === "string") {
      const to = short(parsed.$rewindTo);
      return {
        role: "note",
        content: `[rewind] the conversation was rewound: message ${to} and every message after it left the history`,
        meta: { type: "$rewindTo", rewind_to: to },
        images: [],
        shape: system(true, true),
      };
    }
    if (isObject(parsed.$set)) {
      const keys = Object.keys(parsed.$set).slice(0, MAX_LIST).map(short);
      const meta: Json = { type: "$set", keys };
      if (Array.isArray(parsed.$set.messages)) meta.messages = parsed.$set.messages.length;
      return { role: "note", content: `[$set] ${JSON.stringify(parsed.$set)}`, meta, images: [], shape: system(true, true) };
    }
    if (typeof parsed.id === "string") return message(parsed);
    const meta: Json = { type: typeof parsed.sessionId === "string" ? "session" : "unknown" };
    if (typeof parsed.sessionId === "string") meta.session_id = short(parsed.sessionId);
    if (typeof parsed.kind === "string") meta.subtype = short(parsed.kind);
    return { role: "note", content: `[${meta.type}] ${JSON.stringify(parsed)}`, meta, images: [], shape: system(true, true) };
  } catch {
    return { role: "note", content: text, meta: { type: "unrenderable" }, images: [], shape: system(false) };
  }
}

function message(m: Json): Rendered {
  const type = typeof m.type === "string" ? m.type : "unknown";
  const meta: Json = { type: short(type), message_id: short(m.id as string) };
  if (typeof m.timestamp === "string") meta.timestamp = short(m.timestamp);
  if (typeof m.model === "string") meta.model = short(m.model);
  const text = partsText(m.content);
  if (type === "user") return { role: "user", content: text, meta, images: [], shape: { kind: "prompt", bookkeeping: false, uses: [], results: [] } };
  if (type !== "gemini") return { role: "system", content: text, meta, images: [], shape: system(true) };
  const parts: string[] = [];
  if (Array.isArray(m.thoughts)) {
    for (const t of m.thoughts) {
      if (!isObject(t)) continue;
      const subject = typeof t.subject === "string" ? t.subject : "";
      const description = typeof t.description === "string" ? t.description : "";
      parts.push(`[thinking]\n${subject && description ? `${subject}: ${description}` : subject || description}`);
    }
  }
  if (text !== "") parts.push(text);
  const uses: ToolUse[] = [];
  let whole = false;
  if (Array.isArray(m.toolCalls)) {
    for (const c of m.toolCalls) {
      if (!isObject(c)) continue;
      const name = typeof c.name === "string" ? c.name : "?";
      uses.push({ id: typeof c.id === "string" ? c.id : "", name });
      parts.push(`[tool_use ${name}]\n${JSON.stringify(c.args ?? {})}`);
      // Gemini records a call together with its result; what the user saw may be the whole of a cut output (gemini-whole.ts).
      if (c.result !== undefined && c.result !== null) {
        const result = wholeResult(resultText(c.result), displayText(c.resultDisplay));
        if (result.whole) whole = true;
        parts.push(`[tool_result${c.status === "error" ? " error" : ""}]\n${result.text}`);
      }
    }
  }
  if (uses.length > 0) {
    meta.tools = [...new Set(uses.map((u) => short(u.name)))].slice(0, MAX_LIST);
    meta.tool_use_ids = uses.map((u) => short(u.id)).slice(0, MAX_LIST);
  }
  if (whole) meta.whole_output = true;
  return {
    role: "assistant",
    content: parts.join("\n\n"),
    meta,
    images: [],
    shape: { kind: uses.length > 0 ? "tool_call" : "reply", bookkeeping: false, uses, results: [] },
  };
}

/** Content: a string or a list of parts (`{text}`, inline data named, not stored). */
function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === undefined || content === null) return "";
  if (!Array.isArray(content)) return isObject(content) && typeof content.text === "string" ? content.text : JSON.stringify(content);
  return content
    .map((p) => {
      if (typeof p === "string") return p;
      if (!isObject(p)) return JSON.stringify(p);
      if (typeof p.text === "string") return p.text;
      if (isObject(p.inlineData)) return `[inline data ${String(p.inlineData.mimeType ?? "")}]`;
      return JSON.stringify(p);
    })
    .join("");
}

/** A tool result: function responses' `output` (or their whole response), other parts as text. */
function resultText(result: unknown): string {
  if (typeof result === "string") return result;
  if (!Array.isArray(result)) return JSON.stringify(result);
  return result
    .map((p) => {
      if (isObject(p) && isObject(p.functionResponse)) {
        const response = p.functionResponse.response;
        if (isObject(response) && typeof response.output === "string") return response.output;
        if (isObject(response) && typeof response.error === "string") return response.error;
        return JSON.stringify(response ?? {});
      }
      return partsText([p]);
    })
    .join("\n");
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function short(s: string): string {
  return (s.length > SHORT ? s.slice(0, SHORT) : s).toWellFormed();
}
