/**
 * What kind of turn a captured line is, and whether search should leave it
 * out by default (DESIGN.md 11, "Noise"). Stored in every captured entry's
 * meta as `kind` and, for noise only, `noise`:
 *
 * - kind `prompt` (what a user typed), `reply` (assistant text or thinking),
 *   `tool_call` (an assistant line with any tool_use), `tool_result` (a user
 *   line carrying tool_result blocks), `summary` (Claude Code's compaction:
 *   the prompt asking for a summary of the conversation so far, the
 *   compaction agent's prompt and reply, and the summary line handed to the
 *   next context), `system` (everything else).
 * - noise `bookkeeping`: harness lines nobody said (metadata lines, attachments,
 *   progress, system lines, isMeta user lines, interruption markers).
 * - noise `zerodb`: zerodb's own output read back: calls of its MCP tools,
 *   their results, and the SessionStart context it returned.
 * - noise `rewrite`: a message the harness wrote again unchanged (Gemini CLI,
 *   gemini-versions.ts): the earlier line holds the same text.
 *
 * Pure and deterministic: the same line (and, for tool results, the same
 * transcript before it) always gives the same answer, because the answer is
 * part of the entry's meta and so of its idempotency check (I3).
 */
import { escapeRegExp } from "../util/regexp.ts";
import { isZerodbTool } from "../search/search-class.ts";
import { CONTEXT_HEADER } from "./start-context.ts";

/** A captured turn's kind (meta.kind). */
export type Kind = "prompt" | "reply" | "tool_call" | "tool_result" | "summary" | "system";
/** Why search leaves a turn out by default (meta.noise); absent for a normal turn. */
export type Noise = "bookkeeping" | "zerodb" | "rewrite";

/** A tool_use block of a line: its id and the tool's name. */
export interface ToolUse {
  id: string;
  name: string;
}

/** What rendering learned about a line's shape (render.ts). */
export interface Shape {
  kind: Kind;
  /** A `system` line written by the harness for itself (as opposed to an unreadable line). */
  bookkeeping: boolean;
  /** A metadata line (no uuid): a record of the harness's, never a message, whatever text it copies. */
  metadata?: boolean;
  /** The tool_use blocks of the line. */
  uses: ToolUse[];
  /** The tool_use_id of each tool_result block of the line. */
  results: string[];
  /** The tools those results answer, when the line names them itself (opencode keeps a call and its result in one part). */
  resultTools?: string[];
  /** The line repeats an earlier line's message unchanged (gemini-versions.ts). */
  rewrite?: boolean;
}

/**
 * The SessionStart context at the start of a user-side text, after any
 * wrapping tags and a short label such as "SessionStart hook additional
 * context: " (how Claude Code versions have shown hook output to the model).
 */
const CONTEXT_AT_START = new RegExp(`^(?:\\s*<[A-Za-z_-]+>)*\\s*(?:[^\\n]{0,80}?:\\s*)?${escapeRegExp(CONTEXT_HEADER)}`);

/**
 * True when a line's text carries zerodb's SessionStart context. A harness
 * line (attachment, hook output, system line) may hold it anywhere, even as
 * JSON inside JSON; a user line only at its start, so a prompt that merely
 * mentions the header is still a prompt.
 */
export function holdsStartContext(text: string, kind: Kind): boolean {
  if (kind === "system") return text.includes(CONTEXT_HEADER);
  if (kind === "prompt") return CONTEXT_AT_START.test(text);
  return false;
}

/**
 * The kind and noise of a rendered line. `toolName` answers which tool a
 * tool_result's id belongs to (the tool_use is in an earlier line; see
 * tool-names.ts), or undefined when no earlier line says.
 */
export function classify(shape: Shape, content: string, toolName: (id: string) => string | undefined): { kind: Kind; noise?: Noise } {
  const { kind } = shape;
  // Metadata lines that copy whole API requests (the context among them) stay bookkeeping.
  // A summary is said as a prompt is: the context counts only at its start.
  if (!shape.metadata && (kind === "system" || kind === "prompt" || kind === "summary") && holdsStartContext(content, kind === "summary" ? "prompt" : kind))
    return { kind: "system", noise: "zerodb" };
  if (kind === "system") return shape.bookkeeping ? { kind, noise: "bookkeeping" } : { kind };
  if (shape.rewrite) return { kind, noise: "rewrite" };
  // A line is zerodb's only when every tool in it is: a call beside another tool's stays findable.
  if (kind === "tool_call" && shape.uses.length > 0 && shape.uses.every((u) => isZerodbTool(u.name))) return { kind, noise: "zerodb" };
  if (kind === "tool_result" && shape.resultTools !== undefined && shape.resultTools.length > 0)
    return shape.resultTools.every((name) => isZerodbTool(name)) ? { kind, noise: "zerodb" } : { kind };
  if (kind === "tool_result" && shape.results.length > 0 && shape.results.every((id) => isZerodbTool(toolName(id) ?? ""))) return { kind, noise: "zerodb" };
  return { kind };
}
