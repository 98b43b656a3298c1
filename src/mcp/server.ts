/**
 * createMcpServer: the MCP door over one tenant's memory (DESIGN.md 6.2). It
 * binds to no I/O: stdio.ts connects it to stdin/stdout, tests to an
 * in-memory transport. The low-level SDK server is used so that arguments
 * are validated by zerodb's own parseInput, whose errors name the field.
 *
 * Start-up is a feature (DESIGN.md section 10): `initialize` is answered
 * before the tool table is loaded or the memory opened; both happen on the
 * first tools/list or tools/call, and a memory that cannot be opened is
 * that call's tool error, typed as every door's.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type CallToolRequest, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { z } from "zod";
import { parseInput } from "../schema/parse.ts";
import type { SpillFs } from "../spill/file.ts";
import type { Spiller } from "../spill/spill.ts";
import type { Memory } from "../store/types.ts";
import { VERSION } from "../version.ts";
import { toolFailure, toolSuccess } from "./result.ts";
import { inputJsonSchema } from "./schema.ts";
import type { ToolContext, ToolDef } from "./tool.ts";

/** How a server is set up. */
export interface McpServerOptions {
  /** The tenant's memory, or how to open it: called on the first tool call, and again on the next after a failure. */
  memory: Memory | (() => Promise<Memory>);
  /** The working directory: its project session is remember's and recall's default (7.2). */
  cwd: string;
  /** Directories besides `cwd` object tools may use (config `object_roots`). */
  objectRoots?: string[];
  /** Spilling of oversized results (DESIGN.md section 9). */
  spill: { root: string; maxInlineBytes: number; random?: () => string; fs?: SpillFs };
  /** Identifies this connection in the spill owner; random by default. */
  connectionId?: string;
  /** The tools served (default: all of tools.ts, loaded on the first tools/list or tools/call). */
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

/**
 * The SDK's schema validator, built on first use: the server uses it only to
 * check an elicitation's answer, which zerodb never asks for, and building
 * Ajv with its formats is a few milliseconds of every start.
 */
function lazyValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

/** What a tool call runs with, ready once the memory is open. */
interface Ready {
  ctx: ToolContext;
  spiller: Spiller;
  readHint: (clientName: string | undefined) => string;
}

/** Creates the MCP server of one connection. */
export function createMcpServer(opts: McpServerOptions): Server {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));

  let tools: Promise<{ list: readonly ToolDef[]; byName: Map<string, ToolDef> }> | undefined;
  const toolTable = () =>
    (tools ??= (opts.tools ? Promise.resolve(opts.tools) : import("./tools.ts").then((m) => m.TOOLS)).then((list) => ({
      list,
      byName: new Map(list.map((t) => [t.name, t])),
    })));

  let ready: Promise<Ready> | undefined;
  const open = async (): Promise<Ready> => {
    // What only a tool call needs is loaded by the first one (the project session's name loads the redaction rules).
    const [{ projectSession }, { createSpiller }, { readHint }, { randomUUID }] = await Promise.all([
      import("../project.ts"),
      import("../spill/spill.ts"),
      import("./reader.ts"),
      import("node:crypto"),
    ]);
    const memory = typeof opts.memory === "function" ? await opts.memory() : opts.memory;
    const ctx: ToolContext = { memory, cwd: opts.cwd, projectSession: projectSession(opts.cwd), objectRoots: opts.objectRoots ?? [] };
    // The owner is the tenant and this connection; the spiller hashes it before it touches a path.
    const spiller = createSpiller({
      root: opts.spill.root,
      owner: JSON.stringify([memory.tenant, opts.connectionId ?? randomUUID()]),
      maxInlineBytes: opts.spill.maxInlineBytes,
      random: opts.spill.random,
      fs: opts.spill.fs,
      warn: (w) => log(`zerodb mcp: warning: ${w}`),
    });
    return { ctx, spiller, readHint };
  };
  const opened = (): Promise<Ready> => {
    // A failed open is not kept: the next call tries again (a store another process had locked may open then).
    ready ??= open().catch((err) => {
      ready = undefined;
      throw err;
    });
    return ready;
  };

  const server = new Server(
    { name: "zerodb", version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: lazyValidator() },
  );

  let listed: Tool[] | undefined;
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // Built on first use: converting schemas costs start-up time a client that never lists should not pay.
    // No outputSchema: a spilled result carries no structuredContent, which a declared schema would forbid.
    const { list } = await toolTable();
    listed ??= list.map((t) => ({
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
    const tool = (await toolTable()).byName.get(name);
    // An unknown tool is a protocol error (MCP 2025-11-25, tools: error handling); bad arguments are tool errors.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name.slice(0, 64)}`);
    try {
      const args = parseInput(tool.input, request.params.arguments ?? {});
      const { ctx, spiller, readHint } = await opened();
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
