/**
 * Step `mcp`: `zerodb mcp` answers `initialize` and `tools/list` as raw
 * JSON-RPC over its stdin/stdout (DESIGN.md 6.2), stores and finds an entry
 * through `remember` and `search`, writes nothing but JSON-RPC on stdout
 * (stdout belongs to the protocol), and exits 0 at stdin EOF. Raw JSON-RPC
 * keeps the smoke free of node_modules.
 */
import { lineReader } from "../lines.ts";
import { COMMAND_TIMEOUT_MS, type Sandbox, StepFailure, expect, within } from "../sandbox.ts";

/** The tools every harness relies on; the full table is the MCP tests' business, not the smoke's. */
const CORE_TOOLS = ["remember", "recall", "search"];

/** Initializes an MCP session with the binary and lists its tools. */
export async function mcp(sb: Sandbox): Promise<void> {
  const proc = sb.spawn(["mcp"]);
  const out = lineReader(proc.stdout);
  // Drained from the start, so a chatty stderr can never fill its pipe and stall the server.
  const stderr = new Response(proc.stderr).text();
  const send = (msg: object) => {
    try {
      proc.stdin.write(`${JSON.stringify(msg)}\n`);
      const flushed = proc.stdin.flush();
      if (flushed instanceof Promise) flushed.catch(() => {});
    } catch {
      // The server is gone (EPIPE): reading its answer reports that, with what it said on stderr.
    }
  };
  const answer = async (id: number, what: string) => {
    const line = await out.next(what).catch(async (err: Error) => {
      // A server that died says why on stderr; a live one has not finished writing it, so do not wait long.
      const said = await within(stderr, 1000);
      const why = said === "timeout" ? "" : said.trim().split("\n")[0];
      throw new StepFailure(`${err.message}${why ? ` (stderr: ${why})` : ""}`);
    });
    let msg: { jsonrpc?: string; id?: number; result?: any; error?: any };
    try {
      msg = JSON.parse(line);
    } catch {
      throw new StepFailure(`stdout line is not JSON-RPC: ${JSON.stringify(line.slice(0, 200))}`);
    }
    expect(msg.jsonrpc === "2.0" && msg.id === id, `expected the answer to request ${id}, got ${line.slice(0, 200)}`);
    expect(msg.result && !msg.error, `${what} failed: ${JSON.stringify(msg.error ?? msg).slice(0, 200)}`);
    return msg.result;
  };

  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "zerodb-smoke", version: "1" } },
  });
  const init = await answer(1, "initialize answer");
  expect(init.serverInfo?.name === "zerodb", `initialize names no zerodb server: ${JSON.stringify(init).slice(0, 200)}`);
  expect(init.capabilities?.tools, "initialize announces no tools capability");
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  const listed = await answer(2, "tools/list answer");
  const names = new Set<string>((listed.tools ?? []).map((t: { name: string }) => t.name));
  const missing = CORE_TOOLS.filter((t) => !names.has(t));
  expect(missing.length === 0, `tools/list lacks ${missing.join(", ")}`);

  const word = `mcpword${Math.random().toString(36).slice(2, 8)}`;
  send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "remember", arguments: { content: `the mcp ${word} note`, session: "smoke/mcp" } } });
  const remembered = await answer(3, "remember answer");
  const lsn = remembered.structuredContent?.lsn;
  expect(!remembered.isError && typeof lsn === "number", `remember failed: ${JSON.stringify(remembered).slice(0, 200)}`);
  send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "search", arguments: { query: word } } });
  const found = await answer(4, "search answer");
  const hits: { lsn: number }[] = found.structuredContent?.hits ?? [];
  expect(!found.isError && hits.some((h) => h.lsn === lsn), `search ${word} did not find LSN ${lsn}: ${JSON.stringify(found).slice(0, 200)}`);

  proc.stdin.end();
  const code = await within(proc.exited, COMMAND_TIMEOUT_MS);
  expect(code !== "timeout", `zerodb mcp did not exit within ${COMMAND_TIMEOUT_MS / 1000} s of stdin EOF`);
  expect(code === 0, `zerodb mcp exited ${code} at stdin EOF: ${(await stderr).trim().split("\n")[0]}`);
  for (const line of await out.rest("the end of stdout")) {
    expect(/^\{.*"jsonrpc":"2.0"/.test(line), `stdout line after the answers is not JSON-RPC: ${JSON.stringify(line.slice(0, 200))}`);
  }
}
