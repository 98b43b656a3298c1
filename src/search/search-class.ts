/**
 * The kind of a stored record as search weighs it (DESIGN.md 11, "Noise"):
 * what the user chose to remember, a prompt, a reply, a tool call or result,
 * system text, a link, a summary (Claude Code's compaction: its prompt, its
 * reply and the summary handed to the next context, still searchable), or
 * noise (harness bookkeeping, zerodb's own captured results and injected
 * context), which search leaves out by default.
 * Capture writes `meta.kind` and `meta.noise`; turns captured before it did
 * are classified from the meta they have (`type`, `tools`, `isMeta`).
 */

/** Search classes, stored per tape row (tape.sclass). */
export const SearchClass = {
  note: 0,
  prompt: 1,
  reply: 2,
  tool_call: 3,
  tool_result: 4,
  system: 5,
  link: 6,
  summary: 7,
  noise: 9,
} as const;
export type SearchClass = (typeof SearchClass)[keyof typeof SearchClass];

/** Claude Code line types that are the harness's own bookkeeping. */
const BOOKKEEPING = new Set([
  "attachment",
  "progress",
  "system",
  "queue-operation",
  "file-history-snapshot",
  "summary",
  "last-prompt",
  "mode",
  "custom-title",
  "unknown",
  "unparsable",
  "unrenderable",
]);
const KINDS: Record<string, SearchClass> = {
  prompt: SearchClass.prompt,
  reply: SearchClass.reply,
  tool_call: SearchClass.tool_call,
  tool_result: SearchClass.tool_result,
  system: SearchClass.system,
  summary: SearchClass.summary,
};

/**
 * True when a tool name is one of zerodb's own MCP tools as Claude Code names
 * them (`mcp__zerodb__search`: the server is registered as `zerodb`,
 * HARNESSES.md). Capture marks such calls and results as noise; migration 4
 * recognises them in turns captured before that.
 */
export function isZerodbTool(name: unknown): boolean {
  return typeof name === "string" && name.startsWith("mcp__zerodb__");
}

/** The class of a turn from its role and meta. */
export function turnClass(role: string, meta: Record<string, unknown> | undefined): SearchClass {
  if (!meta) return role === "note" ? SearchClass.note : roleClass(role);
  if (typeof meta.noise === "string" && meta.noise !== "") return SearchClass.noise;
  // Compaction captured before capture knew the kind `summary` (meta.kind system, prompt or reply, or none) is one too.
  if (compactionTurn(role, meta)) return SearchClass.summary;
  if (typeof meta.kind === "string" && Object.hasOwn(KINDS, meta.kind)) return KINDS[meta.kind]!;
  const type = typeof meta.type === "string" ? meta.type : undefined;
  const captured = type !== undefined && typeof meta.position === "number";
  if (!captured) return role === "note" ? SearchClass.note : roleClass(role);
  // A turn captured before capture classified lines.
  if (meta.isMeta === true) return SearchClass.noise;
  if (type === "user") return role === "tool" ? SearchClass.tool_result : SearchClass.prompt;
  if (type === "assistant") {
    const tools = Array.isArray(meta.tools) ? meta.tools : [];
    if (tools.some(isZerodbTool)) return SearchClass.noise;
    return tools.length > 0 ? SearchClass.tool_call : SearchClass.reply;
  }
  return BOOKKEEPING.has(type) || role === "note" || role === "system" ? SearchClass.noise : roleClass(role);
}

/** True for an agent id of Claude Code's compaction agent (`subagents/agent-acompact-<hex>.jsonl`, HARNESSES.md). */
export function isCompactionAgent(agentId: unknown): boolean {
  return typeof agentId === "string" && agentId.startsWith("acompact-");
}

/**
 * A captured Claude Code turn of compaction, known from its meta alone: the
 * `isCompactSummary` line, or the compaction agent's prompt or reply (not its
 * copies of harness lines, which are `isMeta`, nor a tool call or result).
 */
function compactionTurn(role: string, meta: Record<string, unknown>): boolean {
  if (typeof meta.position !== "number") return false;
  if (meta.isCompactSummary === true) return true;
  if (!isCompactionAgent(meta.agent_id) || meta.isMeta === true) return false;
  if (typeof meta.kind === "string") return meta.kind === "prompt" || meta.kind === "reply";
  return (role === "user" || role === "assistant") && !(Array.isArray(meta.tools) && meta.tools.length > 0);
}

function roleClass(role: string): SearchClass {
  switch (role) {
    case "user":
      return SearchClass.prompt;
    case "assistant":
      return SearchClass.reply;
    case "tool":
      return SearchClass.tool_result;
    case "system":
      return SearchClass.system;
    default:
      return SearchClass.note;
  }
}
