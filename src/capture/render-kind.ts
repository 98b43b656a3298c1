/**
 * The kind of a Claude Code message line (DESIGN.md 11, "Noise"): prompt,
 * reply, tool call or result, summary, or system text, and whether that
 * system text is the harness's bookkeeping. render.ts renders the line;
 * this decides what it is, from the line's flags and its rendered text.
 */
import { isCompactionAgent } from "../search/search-class.ts";
import type { Kind, Shape, ToolUse } from "./turn-kind.ts";

/** Harness text in a user line that nobody typed: slash-command output and its caveat, interruption markers. */
const HARNESS_USER_TEXT = /^\s*(?:<local-command-(?:stdout|stderr|caveat)>|\[Request interrupted by user[^\]\n]*\]\s*$)/;
/**
 * A hook's output Claude Code hands the model as a user line of its own
 * (`<system-reminder>` and `PostToolUse:Edit hook additional context: ...`):
 * a compile error or a linter's finding the session then acted on, so system
 * text that search finds, not bookkeeping (measured on real transcripts:
 * docs/decisions/search.md). zerodb's own SessionStart context is still
 * recognised by its header and left out (turn-kind.ts).
 */
const HOOK_OUTPUT = /^\s*<system-reminder>\s*[A-Za-z]+(?::[^\s]+)? hook (?:additional context|blocking error|success|error)/;

/** True when a user line's text is a hook's output handed to the model (HOOK_OUTPUT). */
export function isHookOutput(text: string): boolean {
  return HOOK_OUTPUT.test(text);
}
/** Claude Code's compaction prompt (HARNESSES.md "Compaction"), near the start of a user line. */
const COMPACTION_PROMPT = /create a detailed summary of the conversation so far/i;
/** How far into a user line the compaction prompt's words are looked for. */
const COMPACTION_PROMPT_WITHIN = 400;

/** True when a user line's text is Claude Code's compaction prompt (it asks for a summary of the conversation so far). */
export function isCompactionPrompt(text: string): boolean {
  return COMPACTION_PROMPT.test(text.slice(0, COMPACTION_PROMPT_WITHIN));
}

/** A message's content as rendered (render.ts), with the tools it calls and answers. */
export interface Blocks {
  text: string;
  toolResult: boolean;
  uses: ToolUse[];
  results: string[];
}

/** What a message's line says of itself that decides its kind. */
export interface MessageFlags {
  isMeta: boolean;
  isCompactSummary: boolean;
  /** The agent whose message it is (a subagent's line, or a progress line carrying one). */
  agentId: unknown;
}

/**
 * The kind of a line holding a message (DESIGN.md 11): any tool_use makes an
 * assistant line a tool call, any tool_result a user line a tool result; a
 * user line the harness wrote (isMeta, command output, interruption markers)
 * is bookkeeping. Compaction is a summary (HARNESSES.md "Compaction"): the
 * compact summary line, the prompt asking for a summary of the conversation
 * so far, and the compaction agent's prompt and reply.
 */
export function messageShape(type: string, line: MessageFlags, blocks: Blocks): Shape {
  const tools = { uses: blocks.uses, results: blocks.results };
  const compaction = isCompactionAgent(line.agentId);
  let kind: Kind = "system";
  if (type === "assistant") kind = blocks.uses.length > 0 ? "tool_call" : compaction ? "summary" : "reply";
  else if (type === "user" && blocks.toolResult) kind = "tool_result";
  else if (type === "user" && line.isCompactSummary) kind = "summary";
  else if (type === "user" && !line.isMeta && !HARNESS_USER_TEXT.test(blocks.text)) kind = compaction || isCompactionPrompt(blocks.text) ? "summary" : "prompt";
  const hookOutput = kind === "system" && type === "user" && isHookOutput(blocks.text);
  return { kind, bookkeeping: kind === "system" && !hookOutput, ...tools };
}
