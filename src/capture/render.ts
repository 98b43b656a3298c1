/**
 * One Claude Code transcript line as a turn (HARNESSES.md "Claude Code
 * transcripts"): a role, a readable text, and meta that keeps the
 * conversation's tree (uuid, parentUuid) and where the line came from.
 * Metadata lines (no uuid, or a type this build does not know) are kept
 * compactly as notes: their JSON minus what meta already holds, so the
 * transcript can be reconstructed. A subagent's message carried in the
 * parent transcript (`progress` with `data.type: "agent_progress"`) is
 * rendered as that message (DESIGN.md 11, "What is captured is what is
 * searched"), unless the subagent's own transcript holds it: then it is
 * stored from there, once, and the progress line is a small note. Its shape
 * (kind, tools called and answered: render-kind.ts) goes to turn-kind.ts. Pure but for what
 * `ownFile` answers; never throws.
 */
import type { z } from "zod";
import type { Role } from "../schema/common.ts";
import type { Shape, ToolUse } from "./turn-kind.ts";
import { type Blocks, messageShape } from "./render-kind.ts";

/** An image block found in a line: its bytes are not stored in the text. */
export interface ImageBlock {
  mediaType: string;
  /** The decoded bytes. */
  data: Uint8Array;
}

/** A rendered line, before redaction and chunking. */
export interface Rendered {
  role: z.output<typeof Role>;
  content: string;
  meta: Record<string, unknown>;
  images: ImageBlock[];
  /** Its kind, and the tools it calls or answers, for turn-kind.ts. */
  shape: Shape;
}

/** What rendering a line may know beyond the line. */
export interface RenderOptions {
  /**
   * Whether the subagent with this id has its own transcript that capture
   * reads too (`<session id>/subagents/agent-<id>.jsonl`, sources.ts): its
   * messages carried by progress lines are stored from there, not again.
   */
  ownFile?: (agentId: string) => boolean;
}

type Json = Record<string, unknown>;

/** Message types whose lines carry uuid, parentUuid and (most) a message. */
const MESSAGE_TYPES = new Set(["user", "assistant", "system", "attachment", "progress"]);
/** Longest string kept in meta. */
const SHORT = 256;
const MAX_LIST = 32;

/** The shape of a line that is not a conversation turn; `bookkeeping` unless it is unreadable. */
function systemShape(bookkeeping: boolean): Shape {
  return { kind: "system", bookkeeping, uses: [], results: [] };
}

/** Renders one line's text (without its newline). */
export function renderLine(text: string, opts: RenderOptions = {}): Rendered {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { role: "note", content: text, meta: { type: "unparsable" }, images: [], shape: systemShape(false) };
  }
  if (!isObject(parsed)) return { role: "note", content: text, meta: { type: "unknown" }, images: [], shape: systemShape(false) };
  const type = typeof parsed.type === "string" ? parsed.type : "unknown";
  try {
    if (type === "progress" && typeof parsed.uuid === "string") {
      const carried = renderAgentProgress(parsed, opts);
      if (carried !== undefined) return carried;
    }
    if (typeof parsed.uuid === "string" && MESSAGE_TYPES.has(type)) return renderMessage(parsed, type);
    return renderMetadata(parsed, type);
  } catch {
    // JSON nested too deep for JSON.stringify (a RangeError) is kept verbatim: one such line
    // must not stop the capture of every line after it, run after run (issue 9).
    return { role: "note", content: text, meta: { type: "unrenderable" }, images: [], shape: systemShape(false) };
  }
}

function renderMetadata(line: Json, type: string): Rendered {
  const meta: Json = { type: short(type) };
  if (typeof line.timestamp === "string") meta.timestamp = short(line.timestamp);
  if (typeof line.uuid === "string") meta.uuid = short(line.uuid);
  if (typeof line.parentUuid === "string") meta.parentUuid = short(line.parentUuid);
  const { type: _t, timestamp: _ts, uuid: _u, parentUuid: _p, ...rest } = line;
  // Metadata lines (queue operations, snapshots, titles, request records, summaries, ...) are the harness's own.
  return { role: "note", content: `[${type}] ${JSON.stringify(rest)}`, meta, images: [], shape: { ...systemShape(true), metadata: true } };
}

function renderMessage(line: Json, type: string): Rendered {
  const meta: Json = { type, uuid: short(line.uuid as string) };
  meta.parentUuid = typeof line.parentUuid === "string" ? short(line.parentUuid) : null;
  if (typeof line.timestamp === "string") meta.timestamp = short(line.timestamp);
  if (line.isSidechain === true) meta.isSidechain = true;
  if (typeof line.agentId === "string") meta.agent_id = short(line.agentId);
  if (line.isMeta === true) meta.isMeta = true;
  if (line.isCompactSummary === true) meta.isCompactSummary = true;
  const images: ImageBlock[] = [];
  const message = isObject(line.message) ? line.message : undefined;
  if (message && typeof message.id === "string") meta.message_id = short(message.id);

  let role: Rendered["role"];
  let content: string;
  let shape = systemShape(true);
  if (type === "attachment") {
    role = "system";
    const att = isObject(line.attachment) ? line.attachment : {};
    if (typeof att.type === "string") meta.subtype = short(att.type);
    const rendered = Array.isArray(line.rendered)
      ? line.rendered.map((r) => (isObject(r) && typeof r.content === "string" ? r.content : "")).filter((s) => s)
      : [];
    content = rendered.length > 0 ? rendered.join("\n\n") : `[attachment] ${JSON.stringify(att)}`;
  } else if (message !== undefined) {
    const blocks = renderContent(message.content, meta, images);
    role = type === "assistant" ? "assistant" : type === "system" ? "system" : type === "user" ? (blocks.toolResult ? "tool" : "user") : "note";
    content = blocks.text;
    shape = messageShape(type, { isMeta: line.isMeta === true, isCompactSummary: line.isCompactSummary === true, agentId: line.agentId }, blocks);
  } else {
    role = type === "system" ? "system" : "note";
    if (typeof line.subtype === "string") meta.subtype = short(line.subtype);
    const {
      type: _t,
      uuid: _u,
      parentUuid: _p,
      timestamp: _ts,
      isSidechain: _s,
      sessionId: _id,
      cwd: _c,
      version: _v,
      gitBranch: _g,
      userType: _ut,
      entrypoint: _e,
      ...rest
    } = line;
    content = typeof line.content === "string" ? line.content : `[${type}] ${JSON.stringify(rest)}`;
  }
  return { role, content, meta, images, shape };
}

/**
 * A subagent's message that Claude Code 2.x writes into the parent transcript
 * (HARNESSES.md: `data.type: "agent_progress"`, the message in `data.message`)
 * as the message it carries: its role, its blocks rendered as any message's,
 * and its kind. Meta says whose it is (agent_id, isSidechain) and keeps both
 * identities: the message's uuid (the one its line in the subagent's own
 * transcript has) as `uuid`, the progress line's as `progress_uuid`. When
 * the subagent's own transcript is captured too, the message is stored from
 * there (DESIGN.md 11: stored once) and this line is a small note naming
 * it. Undefined for any other progress line (hook runs, bash output,
 * waiting for a task), which stays bookkeeping.
 */
function renderAgentProgress(line: Json, opts: RenderOptions): Rendered | undefined {
  const data = isObject(line.data) ? line.data : undefined;
  if (data?.type !== "agent_progress") return undefined;
  const carried = isObject(data.message) ? data.message : undefined;
  const message = carried !== undefined && isObject(carried.message) ? carried.message : undefined;
  const type = carried?.type;
  if (carried === undefined || message === undefined || (type !== "user" && type !== "assistant")) return undefined;
  const uuid = typeof carried.uuid === "string" ? carried.uuid : (line.uuid as string);
  const agentId = typeof data.agentId === "string" ? data.agentId : undefined;
  const meta: Json = { type: "progress", subtype: "agent_progress", uuid: short(uuid), progress_uuid: short(line.uuid as string) };
  meta.parentUuid = typeof line.parentUuid === "string" ? short(line.parentUuid) : null;
  const timestamp = typeof carried.timestamp === "string" ? carried.timestamp : line.timestamp;
  if (typeof timestamp === "string") meta.timestamp = short(timestamp);
  meta.isSidechain = true;
  if (agentId !== undefined) meta.agent_id = short(agentId);
  if (typeof line.parentToolUseID === "string") meta.parent_tool_use_id = short(line.parentToolUseID);
  if (agentId !== undefined && opts.ownFile?.(agentId) === true) {
    const file = short(`agent-${agentId}.jsonl`);
    meta.stored_in = file;
    return {
      role: "note",
      content: `[agent_progress] ${short(agentId)}: ${type} message ${short(uuid)}, stored from ${file}`,
      meta,
      images: [],
      shape: systemShape(true),
    };
  }
  if (carried.isMeta === true) meta.isMeta = true;
  if (carried.isCompactSummary === true) meta.isCompactSummary = true;
  if (typeof message.id === "string") meta.message_id = short(message.id);
  const images: ImageBlock[] = [];
  const blocks = renderContent(message.content, meta, images);
  const role: Rendered["role"] = type === "assistant" ? "assistant" : blocks.toolResult ? "tool" : "user";
  const flags = { isMeta: carried.isMeta === true, isCompactSummary: carried.isCompactSummary === true, agentId };
  return { role, content: blocks.text, meta, images, shape: messageShape(type, flags, blocks) };
}

/** Renders a message's content (a string or blocks), noting tools and images in meta. */
function renderContent(content: unknown, meta: Json, images: ImageBlock[]): Blocks {
  if (typeof content === "string") return { text: content, toolResult: false, uses: [], results: [] };
  if (!Array.isArray(content)) return { text: content === undefined ? "" : JSON.stringify(content), toolResult: false, uses: [], results: [] };
  const parts: string[] = [];
  const tools = new Set<string>();
  const toolIds: string[] = [];
  const uses: ToolUse[] = [];
  const results: string[] = [];
  let toolResult = false;
  for (const block of content) {
    if (!isObject(block)) {
      parts.push(JSON.stringify(block));
      continue;
    }
    switch (block.type) {
      case "text":
        parts.push(String(block.text ?? ""));
        break;
      case "thinking":
        parts.push(`[thinking]\n${String(block.thinking ?? "")}`);
        break;
      case "redacted_thinking":
        parts.push("[redacted thinking]");
        break;
      case "tool_use":
      case "server_tool_use": {
        const name = String(block.name ?? "?");
        tools.add(name);
        if (typeof block.id === "string") toolIds.push(block.id);
        uses.push({ id: typeof block.id === "string" ? block.id : "", name });
        parts.push(`[tool_use ${name}]\n${JSON.stringify(block.input ?? {})}`);
        break;
      }
      case "tool_result": {
        toolResult = true;
        if (typeof block.tool_use_id === "string") toolIds.push(block.tool_use_id);
        results.push(typeof block.tool_use_id === "string" ? block.tool_use_id : "");
        const inner = renderContent(block.content, meta, images).text;
        parts.push(`[tool_result${block.is_error === true ? " error" : ""}]\n${inner}`);
        break;
      }
      case "image":
        parts.push(renderImage(block, images));
        break;
      case "document": {
        const src = isObject(block.source) ? block.source : {};
        const label = String(src.media_type ?? src.type ?? "unknown");
        parts.push(src.type === "text" && typeof src.data === "string" ? src.data : `[document ${label}]`);
        break;
      }
      default:
        parts.push(`[${String(block.type)}] ${JSON.stringify(block)}`);
    }
  }
  if (tools.size > 0) meta.tools = [...tools].slice(0, MAX_LIST).map(short);
  if (toolIds.length > 0) meta.tool_use_ids = toolIds.slice(0, MAX_LIST).map(short);
  return { text: parts.join("\n\n"), toolResult, uses, results };
}

/** An image block: noted in the text by type and size; its bytes go to `images`, never into the text. */
function renderImage(block: Json, images: ImageBlock[]): string {
  const src = isObject(block.source) ? block.source : {};
  const mediaType = typeof src.media_type === "string" ? short(src.media_type) : "image";
  if (src.type === "base64" && typeof src.data === "string") {
    const data = Buffer.from(src.data, "base64");
    images.push({ mediaType, data });
    return `[image ${mediaType}, ${data.length} bytes]`;
  }
  return `[image ${mediaType}${typeof src.url === "string" ? ` ${src.url}` : ""}]`;
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Meta strings stay short, so meta stays far under its 16 KiB limit, and well-formed (the schema refuses lone surrogates). */
function short(s: string): string {
  return (s.length > SHORT ? s.slice(0, SHORT) : s).toWellFormed();
}
