/**
 * createMcpServer: the MCP door over one tenant's memory (DESIGN.md 6.2). It
 * binds to no I/O: stdio.ts connects it to stdin/stdout, tests to an
 * in-memory transport. The low-level SDK server is used so that arguments
 * are validated by zerodb's own parseInput, whose errors name the field.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type CallToolRequest, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { projectSession } from "../project.ts";
import { parseInput } from "../schema/parse.ts";
import type { SpillFs } from "../spill/file.ts";
import { createSpiller } from "../spill/spill.ts";
import type { Memory } from "../store/types.ts";
import { VERSION } from "../version.ts";
import { readHint } from "./reader.ts";
import { toolFailure, toolSuccess } from "./result.ts";
import { inputJsonSchema } from "./schema.ts";
import type { ToolContext, ToolDef } from "./tool.ts";
import { TOOLS } from "./tools.ts";

/** How a server is set up. */
export interface McpServerOptions {
  memory: Memory;
  /** The working directory: its project session is remember's and recall's default (7.2). */
  cwd: string;
  /** Directories besides `cwd` object tools may use (config `object_roots`). */
  objectRoots?: string[];
  /** Spilling of oversized results (DESIGN.md section 9). */
  spill: { root: string; maxInlineBytes: number; random?: () => string; fs?: SpillFs };
  /** Identifies this connection in the spill owner; random by default. */
  connectionId?: string;
  /** The tools served (default: all of tools.ts). */
  tools?: readonly ToolDef[];
  /** Where warnings go (stderr in `zerodb mcp`; never stdout, which is the protocol's). */
  log?: (line: string) => void;
  /** Called with its structured result after a tool that writes to the memory succeeded (the background sync, DESIGN.md 16); it must not block. */
  afterWrite?: (result: Record<string, unknown>) => void;
}

/** The tools that write records to the memory (object_get writes a file, not a record). */
const WRITES = new Set(["remember", "fact_set", "forget", "object_put", "link_add"]);

/**
 * The SDK parses a request with the handler's schema before the server's own
 * tools/call check runs; with this loose schema that check is what answers a
 * malformed call, with -32602 (invalid params) rather than -32603.
 */
const ToolsCallRequest = z.looseObject({ method: z.literal("tools/call") });

const INSTRUCTIONS =
  "zerodb is the user's durable memory, shared by every agent on this machine and never sent anywhere. " +
  "Use recall and search to find what earlier sessions recorded before asking the user again; use remember to keep decisions, " +
  "preferences and findings worth having next time, and fact_set for named values that should stay current.";

/** Creates the MCP server of one connection. */
export function createMcpServer(opts: McpServerOptions): Server {
  const tools = opts.tools ?? TOOLS;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const ctx: ToolContext = {
    memory: opts.memory,
    cwd: opts.cwd,
    projectSession: projectSession(opts.cwd),
    objectRoots: opts.objectRoots ?? [],
  };
  // The owner is the tenant and this connection; the spiller hashes it before it touches a path.
  const spiller = createSpiller({
    root: opts.spill.root,
    owner: JSON.stringify([opts.memory.tenant, opts.connectionId ?? randomUUID()]),
    maxInlineBytes: opts.spill.maxInlineBytes,
    random: opts.spill.random,
    fs: opts.spill.fs,
    warn: (w) => log(`zerodb mcp: warning: ${w}`),
  });

  const server = new Server({ name: "zerodb", version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  let listed: Tool[] | undefined;
  server.setRequestHandler(ListToolsRequestSchema, () => {
    // Built on first use: converting schemas costs start-up time a client that never lists should not pay.
    // No outputSchema: a spilled result carries no structuredContent, which a declared schema would forbid.
    listed ??= tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputJsonSchema(t.input),
      ...(t.annotations ? { annotations: { title: t.title, ...t.annotations } } : {}),
    }));
    return { tools: listed };
  });

  server.setRequestHandler(ToolsCallRequest, async (raw) => {
    // Checked against CallToolRequestSchema by the SDK's server before this runs.
    const request = raw as unknown as CallToolRequest;
    const { name } = request.params;
    const tool = byName.get(name);
    // An unknown tool is a protocol error (MCP 2025-11-25, tools: error handling); bad arguments are tool errors.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name.slice(0, 64)}`);
    try {
      const args = parseInput(tool.input, request.params.arguments ?? {});
      const out = await tool.run(args, ctx);
      if (WRITES.has(name)) opts.afterWrite?.(out.structured);
      const hint = readHint(server.getClientVersion()?.name);
      return toolSuccess(name, out, { spiller, maxInlineBytes: opts.spill.maxInlineBytes, hint });
    } catch (err) {
      return toolFailure(name, err, log);
    }
  });

  return server;
}
