/**
 * What one MCP tool is (DESIGN.md 6.2): a name, a description written for a
 * model, the operation's zod input schema (D3) and a function from validated
 * input to a short text rendering plus the structured result. Adding a tool
 * is one entry in the table of tools.ts.
 */
import type { ContentBlock, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { Memory } from "../store/types.ts";

/** What every tool runs against. Later tools (objects) extend it with what they need. */
export interface ToolContext {
  /** The tenant's memory: the store in-process, or the HTTP client in remote mode. */
  memory: Memory;
  /** The server's working directory (object roots are resolved against it). */
  cwd: string;
  /** The project session of `cwd` (DESIGN.md 7.2): remember and recall default to it. */
  projectSession: string;
  /** Directories besides `cwd` whose files object tools may read or write (config `object_roots`, DESIGN.md 8). */
  objectRoots: string[];
}

/** What a tool returns: the rendering a model reads, and the result as data. */
export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
  /** Blocks sent after the text, never spilled (an image object_get returns inline, DESIGN.md 8). */
  blocks?: ContentBlock[];
}

/** One tool of the table. */
export interface ToolDef<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  /** For a model: what the tool is for, when to use it, what comes back. */
  description: string;
  /** The input schema; arguments are validated with it before `run`, naming the bad field. */
  input: S;
  annotations?: ToolAnnotations;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolOutput>;
}

/** Defines a tool, typing `run`'s arguments from the schema. */
export function defineTool<S extends z.ZodType>(def: ToolDef<S>): ToolDef {
  return def as unknown as ToolDef;
}
