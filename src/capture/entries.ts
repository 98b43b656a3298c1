/**
 * From one transcript line to the entries that store it (DESIGN.md 7.2):
 * render, redact (before anything is stored), chunk, and name each chunk
 * `<source>:<position>:<chunk>`. Deterministic: the same line at the same
 * position always gives the same entries, so a replay is recognised by its
 * idempotency keys (I3).
 */
import { META_MAX_BYTES } from "../limits.ts";
import type { EntryInput } from "../schema/ops.ts";
import { redact, redactValue } from "../redact/redact.ts";
import { sha256Hex } from "../util/hash.ts";
import { chunkText } from "./chunk.ts";
import { isCompactionAgent } from "../search/search-class.ts";
import { type ToolUse, classify } from "./turn-kind.ts";
import { type ImageBlock, type Rendered, renderLine } from "./render.ts";

/** One stored chunk of a line. */
export type CaptureEntryInput = EntryInput & { idem_key: string; meta: Record<string, unknown> };

/** A line's entries, one per chunk (none for a blank line). */
export interface LineEntries {
  entries: CaptureEntryInput[];
  /** The line was not JSON: it is kept as a note and reported once. */
  unparsable: boolean;
  /** Image blocks, by the digest their meta names. */
  images: { object: string; image: ImageBlock }[];
  /** The line's tool_use blocks, for the tool names of later results (tool-names.ts). */
  uses: ToolUse[];
}

/** Where a line sits and how to name and mark its entries. */
export interface LineContext {
  /** The first part of every idempotency key: the harness session id, or `<id>/<agent file name>`. */
  idemPrefix: string;
  /** The line's 0-based index in its file. */
  position: number;
  /** Set for a subagent transcript: every entry is marked with it. */
  agentId?: string;
  /** Replace secrets before storing (config capture.redact, on by default). */
  redact: boolean;
  /** The tool a tool_result's id answers, from earlier lines (tool-names.ts); unknown when absent. */
  toolName?: (id: string) => string | undefined;
  /** The harness's line renderer; Claude Code's when absent. */
  render?: (text: string) => Rendered;
}

/** The entries of one line (its text without the newline). */
export function lineEntries(text: string, ctx: LineContext): LineEntries {
  if (text.trim() === "") return { entries: [], unparsable: false, images: [], uses: [] };
  const rendered = (ctx.render ?? renderLine)(text);
  const meta: Record<string, unknown> = { ...rendered.meta, position: ctx.position };
  // Classified before redaction: zerodb's context is recognised by its header, whatever redaction does to the rest.
  const { kind, noise } = classify(rendered.shape, rendered.content, ctx.toolName ?? (() => undefined));
  // The compaction agent's transcript (agent-acompact-*.jsonl) is a summary whether or not its lines name the agent.
  meta.kind = isCompactionAgent(ctx.agentId) && (kind === "prompt" || kind === "reply") ? "summary" : kind;
  if (noise !== undefined) meta.noise = noise;
  if (ctx.agentId !== undefined) {
    meta.isSidechain = true;
    meta.agent_id ??= ctx.agentId;
  }
  let content = rendered.content.toWellFormed();
  if (ctx.redact) {
    const r = redact(content);
    // The line's own fields (cwd, branch, tool names) are scanned too: a secret is a secret wherever it sits.
    const m = redactValue(meta);
    content = r.text;
    Object.assign(meta, m.value);
    if (r.redactions + m.redactions > 0) meta.redacted = r.redactions + m.redactions;
  } else {
    meta.redaction = "off";
  }
  const images = rendered.images.map((image) => ({ object: `sha256:${sha256Hex(image.data)}`, image }));
  if (images.length > 0) meta.images = images.slice(0, 32).map((i) => ({ object: i.object, type: i.image.mediaType, bytes: i.image.data.length }));
  const { chunks, truncated } = chunkText(content);
  const entries = chunks.map((chunk, i): CaptureEntryInput => {
    const m: Record<string, unknown> = chunks.length > 1 || truncated ? { ...meta, chunk: i, chunks: chunks.length } : { ...meta };
    if (truncated && i === chunks.length - 1) m.truncated = true;
    return { role: rendered.role, content: chunk, meta: fitMeta(m), idem_key: `${ctx.idemPrefix}:${ctx.position}:${i}` };
  });
  return { entries, unparsable: rendered.meta.type === "unparsable", images, uses: rendered.shape.uses };
}

/** Drops the optional lists when meta would pass its limit (it cannot in practice: every string in it is short). */
function fitMeta(meta: Record<string, unknown>): Record<string, unknown> {
  if (Buffer.byteLength(JSON.stringify(meta), "utf8") <= META_MAX_BYTES) return meta;
  const { tools: _t, tool_use_ids: _i, images: _im, ...rest } = meta;
  return rest;
}
