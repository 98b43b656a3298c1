/**
 * Captured turns of stores written before capture rendered subagent
 * progress and compaction (SQLite migration 8, PostgreSQL migration 4),
 * rendered as capture renders their lines now (DESIGN.md 11, "What is
 * captured is what is searched"):
 *
 * - a Claude Code `agent_progress` line, kept as a `[progress] {...}` note
 *   (the JSON of the line is in the note), becomes the subagent's message it
 *   carries; or, when the store holds the subagent's own transcript, the
 *   small note saying the message is stored from there (stored once);
 * - a compaction turn (the compact summary line, the compaction prompt, the
 *   compaction agent's prompt and reply) becomes kind `summary`;
 * - a hook's output handed to the model as a user line (a compile error, a
 *   linter's finding), kept as bookkeeping, becomes system text search finds;
 * - a Codex `exec_command_end` line of the unified exec tool (or of a user's
 *   shell command), kept as an `[event_msg exec_command_end] {...}` note,
 *   becomes the tool result holding the command and its whole output
 *   (SQLite migration 10, PostgreSQL migration 7).
 *
 * The result is what a capture of the same line would store today (its
 * content, meta and so its operation hash), so a replay of the line after
 * the migration is a duplicate (I3), and the index text stays a function of
 * the stored text (I9). Engine-agnostic: each engine answers the look-ups
 * and writes the row.
 */
import type { z } from "zod";
import type { Role } from "../schema/common.ts";
import { isCompactionAgent } from "../search/search-class.ts";
import type { ToolUse } from "./turn-kind.ts";
import { lineEntries } from "./entries.ts";
import { renderLine } from "./render.ts";
import { renderCodexLine } from "./render-codex.ts";
import { isCompactionPrompt, isHookOutput } from "./render-kind.ts";
import { isObject } from "../util/json.ts";

/** A captured turn as the tape holds it. */
export interface StoredTurn {
  role: string;
  content: string;
  meta: Record<string, unknown>;
  idemKey: string | null;
}

/** What the store knows that capture knew from the transcripts. */
export interface RerenderLookups {
  /** Whether the tenant holds entries capture read from `<harnessId>/agent-<agentId>.jsonl` (a subagent's own transcript). */
  ownFile(harnessId: string, agentId: string): boolean;
  /** The tool of a tool_use id in an earlier turn of the same capture session (the caller notes `uses` as it goes). */
  toolName(id: string): string | undefined;
}

/** A turn as capture renders its line now; `uses` are the line's tool_use blocks, for later results' tool names. */
export interface Rerendered {
  role: z.output<typeof Role>;
  content: string;
  meta: Record<string, unknown>;
  uses: ToolUse[];
}

/** Where a captured entry came from, read from its idempotency key `<source>:<position>:<chunk>` (DESIGN.md 7.2). */
export interface CaptureKey {
  /** The source's idempotency prefix: `<harness id>`, `<harness id>/agent-<id>.jsonl`, either with a generation suffix `~<hex>`. */
  source: string;
  harnessId: string;
  /** For a subagent transcript's entry: the agent's id. */
  agentId?: string;
  position: number;
  chunk: number;
}

const KEY = /^(.+):(\d+):(\d+)$/;
/** A later generation of a source (cursor-identity.ts): `<key>~<12 hex>`. */
const GENERATION = /~[0-9a-f]{12}$/;
const AGENT_SOURCE = /^[^/]+\/agent-(.+)\.jsonl$/;
/** How an agent_progress line was kept before: `[progress] ` and the JSON of the line without the fields meta holds (render.ts). */
const PROGRESS_NOTE = "[progress] {";
/** How a Codex exec_command_end line was kept before: `[event_msg exec_command_end] ` and the JSON of the line without type, timestamp and ordinal (render-codex.ts). */
export const COMMAND_END_NOTE = "[event_msg exec_command_end] {";
/** A secret's stand-in (src/redact/redact.ts). */
const MARKER = /\[redacted:[a-z0-9_]{1,40}\]/g;

/** The source, harness session and line of a captured entry's key, or undefined for a key capture did not make. */
export function captureKey(idemKey: string): CaptureKey | undefined {
  const m = KEY.exec(idemKey);
  if (!m) return undefined;
  const source = m[1]!;
  const bare = source.replace(GENERATION, "");
  const agent = AGENT_SOURCE.exec(bare);
  return { source, harnessId: bare.split("/")[0]!, ...(agent ? { agentId: agent[1]! } : {}), position: Number(m[2]), chunk: Number(m[3]) };
}

/**
 * A stored turn as today's capture would store its line, or undefined when
 * that is what it already is (or it cannot be known: a chunk of a line, a
 * key capture did not make, a note that is neither an agent_progress line's
 * nor an exec_command_end line's).
 */
export function rerenderTurn(turn: StoredTurn, lookups: RerenderLookups): Rerendered | undefined {
  const { meta } = turn;
  if (turn.idemKey === null || typeof meta.position !== "number") return undefined;
  const key = captureKey(turn.idemKey);
  if (key === undefined || key.position !== meta.position) return undefined;
  if (meta.type === "progress" && turn.content.startsWith(PROGRESS_NOTE)) return agentProgress(turn, key, lookups);
  if (meta.type === "event_msg" && meta.subtype === "exec_command_end" && turn.content.startsWith(COMMAND_END_NOTE)) return commandEnd(turn, key);
  return asHookOutput(turn, key) ?? asSummary(turn, key);
}

/**
 * The JSON object a note kept after its prefix (`[progress] {...}`), or
 * undefined when it is not one: a line cut into chunks cannot be read back
 * from one of them.
 */
function noteJson(turn: StoredTurn, key: CaptureKey, prefix: string): Record<string, unknown> | undefined {
  if (key.chunk !== 0 || turn.meta.chunks !== undefined) return undefined;
  try {
    const rest: unknown = JSON.parse(turn.content.slice(prefix.length - 1));
    return isObject(rest) ? rest : undefined;
  } catch {
    return undefined;
  }
}

/** An agent_progress note rendered as the message it carries (render.ts renderAgentProgress). */
function agentProgress(turn: StoredTurn, key: CaptureKey, lookups: RerenderLookups): Rerendered | undefined {
  const { meta } = turn;
  if (typeof meta.uuid !== "string") return undefined;
  const rest = noteJson(turn, key, PROGRESS_NOTE);
  if (rest === undefined || !isObject(rest.data) || rest.data.type !== "agent_progress") return undefined;
  // The line as it was, but for what render.ts moved into meta and what it left out (sessionId, cwd, version, ...).
  const line = {
    ...rest,
    type: "progress",
    uuid: meta.uuid,
    parentUuid: meta.parentUuid ?? null,
    ...(typeof meta.timestamp === "string" ? { timestamp: meta.timestamp } : {}),
  };
  const made = lineEntries(JSON.stringify(line), {
    idemPrefix: key.source,
    position: key.position,
    ...(key.agentId !== undefined ? { agentId: key.agentId } : {}),
    redact: meta.redaction !== "off",
    toolName: (id) => lookups.toolName(id),
    render: (text) => renderLine(text, { ownFile: (agentId) => lookups.ownFile(key.harnessId, agentId) }),
  });
  // Rendered, it would take several chunks: more rows than the one it has. It stays as it is.
  if (made.entries.length !== 1) return undefined;
  const entry = made.entries[0]!;
  const out: Record<string, unknown> = { ...entry.meta };
  // Capture stores a line's images as objects before its turn; this line's never were, so its meta names none.
  delete out.images;
  // The secrets were replaced when the line was first stored: the count is that capture's.
  const before = typeof meta.redacted === "number" ? meta.redacted : 0;
  if (before > 0) out.redacted = Math.max(before, typeof out.redacted === "number" ? out.redacted : 0);
  return { role: entry.role, content: entry.content, meta: out, uses: made.uses };
}

/**
 * A Codex exec_command_end note rendered as render-codex.ts renders its line
 * now: the tool result of a unified exec command, or, for a source whose
 * output a function_call_output holds (the note it already is), undefined.
 */
function commandEnd(turn: StoredTurn, key: CaptureKey): Rerendered | undefined {
  const { meta } = turn;
  const rest = noteJson(turn, key, COMMAND_END_NOTE);
  if (rest === undefined || !isObject(rest.payload) || rest.payload.type !== "exec_command_end") return undefined;
  // The line as it was: what render-codex.ts moved into meta, then the rest of it.
  const line = {
    ...(typeof meta.timestamp === "string" ? { timestamp: meta.timestamp } : {}),
    ...(typeof meta.ordinal === "number" ? { ordinal: meta.ordinal } : {}),
    type: "event_msg",
    ...rest,
  };
  // A Codex thread that Codex started itself is a sidechain, its thread id the agent id (capture/codex.ts codexSource).
  const agentId = meta.isSidechain === true && typeof meta.agent_id === "string" ? meta.agent_id : undefined;
  const made = lineEntries(JSON.stringify(line), {
    idemPrefix: key.source,
    position: key.position,
    ...(agentId !== undefined ? { agentId } : {}),
    redact: meta.redaction !== "off",
    // The result's tool is only asked to tell zerodb's own tools apart; exec_command's results are never zerodb's.
    render: renderCodexLine,
  });
  if (made.entries.length !== 1) return undefined;
  const entry = made.entries[0]!;
  if (entry.role !== "tool") return undefined;
  const out: Record<string, unknown> = { ...entry.meta };
  // The note's secrets were replaced when it was stored, in every copy the line held (command, parsed_cmd, output):
  // the count a capture of the line makes now is that of the stand-ins the rendered text and meta still hold.
  if (typeof meta.redacted === "number" && meta.redacted > 0) {
    delete out.redacted;
    const held = (entry.content.match(MARKER)?.length ?? 0) + (JSON.stringify(out).match(MARKER)?.length ?? 0);
    if (held > 0) out.redacted = held;
  }
  return { role: entry.role, content: entry.content, meta: out, uses: made.uses };
}

/**
 * A hook's output captured as bookkeeping (an `isMeta` user line) as the
 * system text render.ts now makes of it: the same meta without `noise`. Its
 * text says so at its start, so only a line's first chunk is known.
 */
function asHookOutput(turn: StoredTurn, key: CaptureKey): Rerendered | undefined {
  const { meta } = turn;
  if (meta.type !== "user" || meta.isMeta !== true || meta.kind !== "system" || meta.noise !== "bookkeeping") return undefined;
  if (key.chunk !== 0 || !isHookOutput(turn.content)) return undefined;
  const { noise: _noise, ...rest } = meta;
  return { role: turn.role as Rerendered["role"], content: turn.content, meta: rest, uses: [] };
}

/**
 * A compaction turn captured with a kind of before (system, prompt, reply) as
 * kind `summary`, as render.ts and entries.ts now classify its line; turns
 * captured before capture wrote kinds keep their meta (their class comes
 * from it: search/search-class.ts turnClass).
 */
function asSummary(turn: StoredTurn, key: CaptureKey): Rerendered | undefined {
  const { meta } = turn;
  const kind = meta.kind;
  if (typeof kind !== "string" || (typeof meta.noise === "string" && meta.noise !== "")) return undefined;
  const said = kind === "prompt" || kind === "reply";
  const summary =
    (kind === "system" && meta.isCompactSummary === true) ||
    (said && (isCompactionAgent(meta.agent_id) || isCompactionAgent(key.agentId))) ||
    // The prompt's words are looked for at the start of the line's text: a later chunk does not hold it.
    (kind === "prompt" && meta.chunks === undefined && isCompactionPrompt(turn.content));
  if (!summary) return undefined;
  return { role: turn.role as Rerendered["role"], content: turn.content, meta: { ...meta, kind: "summary" }, uses: [] };
}
