/**
 * The two MCP memory servers the peers section drives with the same workload,
 * each behind the same small interface: how to start it, how to remember one
 * memory, how to search. Both are reached only through the SDK's own Client
 * over stdio, the way a harness reaches them.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, type StdioServerParameters } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ROOT } from "./_lib.ts";

/** One MCP memory server under test. */
export interface Contender {
  /** Short label used in figure names. */
  label: string;
  /** How to spawn it (command, args, env, cwd). */
  params: StdioServerParameters;
  /** The directory whose size is its bytes on disk. */
  dataDir: string;
  /** Remembers memory i with the given text; returns the id a search hit carries. */
  remember(client: Client, i: number, text: string): Promise<string>;
  /** Searches; returns the ids of the hits in the order the server ranked them. */
  search(client: Client, query: string): Promise<string[]>;
  /** What a search returns besides the ids, said once in the output. */
  searchNote: string;
  /**
   * Writes memories [from, to) straight into the server's own file format,
   * between calls, returning their ids: the quick run's way to reach N = 10,000
   * without minutes of writes. Only a server that rereads its file per call has it.
   */
  seed?(from: number, to: number, text: (i: number) => string): Promise<string[]>;
}

/** A connected client and the server process behind it. */
export interface Connection {
  client: Client;
  pid: number | undefined;
  close(): Promise<void>;
}

/** Spawns the server and completes initialize (the SDK sends `initialized` before connect resolves). */
export async function connect(c: Contender): Promise<Connection> {
  const transport = new StdioClientTransport({ ...c.params, stderr: "ignore" });
  const client = new Client({ name: "zerodb-bench", version: "0" });
  await client.connect(transport);
  return { client, pid: transport.pid ?? undefined, close: () => client.close() };
}

type ToolResult = Awaited<ReturnType<Client["callTool"]>>;

/** A tool call whose failure stops the bench: a figure from failed calls would be a lie. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
  return r;
}

/** The environment of a server under test: its own home, nothing of the user's. */
function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...extra };
}

/**
 * `zerodb mcp` with a private ZERODB_HOME, started in a temp project directory
 * so remember goes to that directory's project session (DESIGN.md 6.2, 7.2).
 */
export function zerodbContender(bin: string, dir: string): Contender {
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(project, { recursive: true });
  const zhome = join(home, "zerodb");
  return {
    label: "zerodb mcp",
    params: { command: bin, args: ["mcp"], env: envFor(home, { ZERODB_HOME: zhome }), cwd: project },
    dataDir: zhome,
    async remember(client, _i, text) {
      const r = await call(client, "remember", { content: text });
      return String((r.structuredContent as { lsn: number }).lsn);
    },
    async search(client, query) {
      const r = await call(client, "search", { query, limit: 10 });
      return (r.structuredContent as { hits: { lsn: number }[] }).hits.map((h) => String(h.lsn));
    },
    searchNote: "search with limit 10, BM25 order",
  };
}

/** Where npm put the reference server's entry point. */
export const REFERENCE_ENTRY = join(ROOT, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");

/**
 * The official reference memory server (@modelcontextprotocol/server-memory)
 * under node, its JSONL file in a temp dir. Its closest tool to "remember one
 * memory" is create_entities with one entity holding the text as its single
 * observation (add_observations needs an entity to exist already); its search
 * is search_nodes, a case-insensitive substring scan returning every match.
 */
export function referenceContender(dir: string): Contender {
  const home = join(dir, "home");
  const data = join(dir, "data");
  const file = join(data, "memory.jsonl");
  mkdirSync(data, { recursive: true });
  const entity = (i: number, text: string) => ({ type: "entity", name: `memory-${i}`, entityType: "note", observations: [text] });
  return {
    label: "server-memory (node)",
    params: { command: "node", args: [REFERENCE_ENTRY], env: envFor(home, { MEMORY_FILE_PATH: file }), cwd: dir },
    dataDir: data,
    async remember(client, i, text) {
      const { type: _, ...e } = entity(i, text);
      await call(client, "create_entities", { entities: [e] });
      return e.name;
    },
    async search(client, query) {
      const r = await call(client, "search_nodes", { query });
      return (r.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name);
    },
    searchNote: "search_nodes has no limit: every matching entity comes back, in file order",
    // Its file is JSONL, one entity per line, reread in full by every call (saveGraph/loadGraph in its dist/index.js).
    async seed(from, to, text) {
      const lines: string[] = [];
      for (let i = from; i < to; i++) lines.push(JSON.stringify(entity(i, text(i))));
      appendFileSync(file, `\n${lines.join("\n")}`);
      return Array.from({ length: to - from }, (_, k) => `memory-${from + k}`);
    },
  };
}
