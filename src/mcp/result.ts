/**
 * From a tool's outcome to an MCP CallToolResult (DESIGN.md 6.2, 9): the
 * text, spilled when too large, and structuredContent when it fits; failures
 * are tool errors (isError) carrying the same code and field as every door.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { toZeroDbError } from "../errors.ts";
import type { Spiller } from "../spill/spill.ts";
import type { ToolOutput } from "./tool.ts";

/** Where a spilled result's locator goes in the result's `_meta`. */
export const SPILL_META_KEY = "zerodb/spill";

/** How results are sized and spilled. */
export interface ResultOptions {
  spiller: Spiller;
  maxInlineBytes: number;
  /** The retrieval sentence for this client. */
  hint: string;
}

/**
 * A successful result. Some harnesses (Claude Code) hand the model
 * JSON.stringify(structuredContent) instead of the text, so structured data
 * is sent only when it fits the inline budget too; a spilled result carries
 * its preview as text and the file's locator in `_meta`.
 */
export function toolSuccess(name: string, out: ToolOutput, opts: ResultOptions): CallToolResult {
  const { text, spill } = opts.spiller.apply(out.text, { name: `${name}.txt`, hint: opts.hint });
  const content = [{ type: "text" as const, text }, ...(out.blocks ?? [])];
  if (spill) return { content, _meta: { [SPILL_META_KEY]: spill } };
  const structuredFits = Buffer.byteLength(JSON.stringify(out.structured), "utf8") <= opts.maxInlineBytes;
  return { content, ...(structuredFits ? { structuredContent: out.structured } : {}) };
}

/**
 * A failed call as a tool error: `<code>: <field>: <message>` as text and
 * `{error: {code, message, field?}}` as data. Unknown errors are logged once
 * (without a stack) and answered generically (DESIGN.md I10).
 */
export function toolFailure(name: string, err: unknown, log: (line: string) => void): CallToolResult {
  const e = toZeroDbError(err);
  if (e.code === "internal") log(`zerodb mcp: internal error in tool ${name}: ${(e.cause as Error)?.message ?? e.cause}`);
  const named = e.field && !e.message.startsWith(`${e.field}:`) ? `${e.field}: ${e.message}` : e.message;
  return { content: [{ type: "text", text: `${e.code}: ${named}` }], structuredContent: e.toJSON(), isError: true };
}
