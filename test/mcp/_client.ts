/** Test helpers: the built `zerodb mcp` driven by the SDK's own Client over stdio. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ZERODB } from "../helpers.ts";

/** A connected client with the server's stderr; disposing closes both. */
export interface McpProcess extends AsyncDisposable {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Calls a tool and returns the raw result. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

/** The environment of a test server: HOME and ZERODB_HOME inside `home`. */
export function mcpEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb"), ...extra };
}

/** Writes `<home>/zerodb/config.json`. */
export function writeConfig(home: string, config: Record<string, unknown>): void {
  mkdirSync(join(home, "zerodb"), { recursive: true });
  writeFileSync(join(home, "zerodb", "config.json"), JSON.stringify(config));
}

/** Spawns `zerodb mcp` (plus `args`) in `cwd` and connects an SDK client named `clientName`. */
export async function startMcp(opts: { home: string; cwd?: string; args?: string[]; clientName?: string; env?: Record<string, string> }): Promise<McpProcess> {
  const transport = new StdioClientTransport({
    command: ZERODB,
    args: ["mcp", ...(opts.args ?? [])],
    env: mcpEnv(opts.home, opts.env),
    cwd: opts.cwd ?? opts.home,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: opts.clientName ?? "zerodb-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

/** The text of a result's single text block. */
export function textOf(result: CallToolResult): string {
  const block = result.content[0];
  if (result.content.length !== 1 || block?.type !== "text") throw new Error(`expected one text block, got ${JSON.stringify(result.content)}`);
  return block.text;
}
