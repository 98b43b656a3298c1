/**
 * createMcpServer: the MCP door over one tenant's memory (DESIGN.md 6.2). It
 * binds to no I/O: stdio.ts connects it to stdin/stdout, tests to an
 * in-memory transport; a client is the SDK's or any other. Arguments are
 * validated by zerodb's own parseInput, whose errors name the field.
 *
 * The protocol is served here, not by the SDK's Server: that one loads the
 * SDK's zod schemas of every MCP message, half of a cold start before
 * `initialize` could be answered (issue 32). What it did for zerodb is
 * kept: version negotiation, ping, method-not-found, invalid params, and a
 * cancelled request left unanswered (MCP 2025-11-25, basic and lifecycle).
 *
 * Start-up is a feature (DESIGN.md section 10): `initialize` is answered
 * before the tool table is loaded or the memory opened; both happen on the
 * first tools/list or tools/call, and a memory that cannot be opened is
 * that call's tool error, typed as every door's.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Implementation, JSONRPCMessage, RequestId, Tool } from "@modelcontextprotocol/sdk/types.js";
import { parseInput } from "../schema/parse.ts";
import type { SpillFs } from "../spill/file.ts";
import type { Spiller } from "../spill/spill.ts";
import type { Memory } from "../store/types.ts";
import { VERSION } from "../version.ts";
import { toolFailure, toolSuccess } from "./result.ts";
import { type RpcRequest, RpcCode, RpcError, classify } from "./jsonrpc.ts";
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

const INSTRUCTIONS =
  "zerodb is the user's durable memory, shared by every agent on this machine and never sent anywhere. " +
  "Use recall and search to find what earlier sessions recorded before asking the user again; use remember to keep decisions, " +
  "preferences and findings worth having next time, and fact_set for named values that should stay current.";

/** What a tool call runs with, ready once the memory is open. */
interface Ready {
  ctx: ToolContext;
  spiller: Spiller;
  readHint: (clientName: string | undefined) => string;
}

/** Creates the MCP server of one connection. */
export function createMcpServer(opts: McpServerOptions): McpServer {
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

  let listed: Tool[] | undefined;
  const listTools = async (): Promise<{ tools: Tool[] }> => {
    // Built on first use: converting schemas costs start-up time a client that never lists should not pay.
    // No outputSchema: a spilled result carries no structuredContent, which a declared schema would forbid.
    const [{ list }, { inputJsonSchema }] = await Promise.all([toolTable(), import("./schema.ts")]);
    listed ??= list.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputJsonSchema(t.input),
      ...(t.annotations ? { annotations: { title: t.title, ...t.annotations } } : {}),
    }));
    return { tools: listed };
  };

  const callTool = async (params: Record<string, unknown>, client: Implementation | undefined): Promise<CallToolResult> => {
    const { name, arguments: given } = params;
    if (typeof name !== "string") throw new RpcError(RpcCode.InvalidParams, "invalid params: name must be a string");
    if (given !== undefined && (typeof given !== "object" || given === null || Array.isArray(given))) {
      throw new RpcError(RpcCode.InvalidParams, "invalid params: arguments must be an object");
    }
    const tool = (await toolTable()).byName.get(name);
    // An unknown tool is a protocol error (MCP 2025-11-25, tools: error handling); bad arguments are tool errors.
    if (!tool) throw new RpcError(RpcCode.InvalidParams, `unknown tool: ${name.slice(0, 64)}`);
    try {
      const args = parseInput(tool.input, given ?? {});
      const { ctx, spiller, readHint } = await opened();
      const out = await tool.run(args, ctx);
      if (WRITES.has(name)) opts.afterWrite?.(out.structured);
      const hint = readHint(client?.name);
      return toolSuccess(name, out, { spiller, maxInlineBytes: opts.spill.maxInlineBytes, hint });
    } catch (err) {
      return toolFailure(name, err, log);
    }
  };

  return new McpServer({ listTools, callTool });
}

/** What the server does for each kind of request beyond the lifecycle's. */
interface Handlers {
  listTools(): Promise<{ tools: Tool[] }>;
  callTool(params: Record<string, unknown>, client: Implementation | undefined): Promise<CallToolResult>;
}

/** The protocol versions answered as asked; any other is answered with the newest (MCP lifecycle: version negotiation). */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];

/** One connection's MCP server: `connect` it to a transport; it serves until the transport closes. */
export class McpServer {
  /** Called once the connection is closed, by either side. */
  onclose?: () => void;
  /** Called with what could not be served: an invalid message, a response that could not be sent. */
  onerror?: (err: Error) => void;

  private transport: Transport | undefined;
  private client: Implementation | undefined;
  /** Requests being served, by id; a cancelled one's answer is dropped (the newest of a reused id is the one cancelled). */
  private readonly inFlight = new Map<RequestId, { cancelled: boolean }>();

  constructor(private readonly handlers: Handlers) {}

  /** The client's name and version from its `initialize`, once it was received. */
  getClientVersion(): Implementation | undefined {
    return this.client;
  }

  /** Starts serving over `transport`. */
  async connect(transport: Transport): Promise<void> {
    this.transport = transport;
    transport.onmessage = (message: JSONRPCMessage) => this.receive(message);
    transport.onerror = (err) => this.onerror?.(err);
    transport.onclose = () => {
      if (this.transport !== transport) return;
      this.transport = undefined;
      this.inFlight.clear();
      this.onclose?.();
    };
    await transport.start();
  }

  /** Closes the connection; answers still being worked out are not sent. */
  async close(): Promise<void> {
    await this.transport?.close();
  }

  private receive(raw: unknown): void {
    const c = classify(raw);
    if (c instanceof Error) return void this.onerror?.(c);
    if (c.kind === "notification") {
      // A cancelled request gets no answer (MCP: cancellation); other notifications need nothing from zerodb.
      if (c.message.method === "notifications/cancelled") {
        const served = this.inFlight.get(c.message.params?.requestId as RequestId);
        if (served) served.cancelled = true;
      }
      return;
    }
    // zerodb sends no requests, so a response answers nothing here.
    if (c.kind === "response") return;
    void this.serve(c.message);
  }

  private async serve(request: RpcRequest): Promise<void> {
    const { id } = request;
    const transport = this.transport;
    const served = { cancelled: false };
    this.inFlight.set(id, served);
    let answer: JSONRPCMessage;
    try {
      answer = { jsonrpc: "2.0", id, result: (await this.handle(request)) as Record<string, unknown> } as JSONRPCMessage;
    } catch (err) {
      const code = err instanceof RpcError ? err.code : RpcCode.InternalError;
      const message = err instanceof RpcError ? err.message : "internal error";
      if (!(err instanceof RpcError)) this.onerror?.(new Error(`${request.method} failed: ${(err as Error)?.message ?? err}`));
      answer = { jsonrpc: "2.0", id, error: { code, message } };
    }
    if (this.inFlight.get(id) === served) this.inFlight.delete(id);
    if (served.cancelled || transport === undefined || transport !== this.transport) return;
    await transport
      .send(answer)
      .catch((err: unknown) => this.onerror?.(new Error(`cannot send the answer to ${request.method}: ${(err as Error)?.message ?? err}`)));
  }

  private handle(request: RpcRequest): Promise<unknown> | unknown {
    const params = request.params ?? {};
    switch (request.method) {
      case "initialize":
        return this.initialize(params);
      case "ping":
        return {};
      case "tools/list":
        return this.handlers.listTools();
      case "tools/call":
        return this.handlers.callTool(params, this.client);
      default:
        throw new RpcError(RpcCode.MethodNotFound, "Method not found");
    }
  }

  private initialize(params: Record<string, unknown>) {
    const { protocolVersion, clientInfo } = params;
    if (typeof protocolVersion !== "string") throw new RpcError(RpcCode.InvalidParams, "invalid params: protocolVersion must be a string");
    const info = clientInfo as Partial<Implementation> | undefined;
    if (info === null || typeof info !== "object" || typeof info.name !== "string" || typeof info.version !== "string") {
      throw new RpcError(RpcCode.InvalidParams, "invalid params: clientInfo must name the client and its version");
    }
    this.client = info as Implementation;
    return {
      protocolVersion: PROTOCOL_VERSIONS.includes(protocolVersion) ? protocolVersion : PROTOCOL_VERSIONS[0],
      capabilities: { tools: {} },
      serverInfo: { name: "zerodb", version: VERSION },
      instructions: INSTRUCTIONS,
    };
  }
}
