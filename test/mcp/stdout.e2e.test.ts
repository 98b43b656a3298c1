/**
 * In `mcp` mode stdout belongs to the protocol (STYLE.md habit 6): every line
 * `zerodb mcp` writes there parses as JSON-RPC, whatever it is fed,
 * malformed lines and bad calls included.
 */
import { describe, expect, test } from "bun:test";
import { ZERODB, tempDir } from "../helpers.ts";
import { mcpEnv } from "./_client.ts";

/** Feeds raw lines to `zerodb mcp`, closes stdin, and collects what it wrote. */
async function feed(lines: string[], home: string) {
  const proc = Bun.spawn([ZERODB, "mcp"], {
    cwd: home,
    env: mcpEnv(home),
    stdin: new Blob([lines.map((l) => `${l}\n`).join("")]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

const req = (id: number, method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
const call = (id: number, name: string, args?: unknown) => req(id, "tools/call", { name, ...(args !== undefined ? { arguments: args } : {}) });

describe("zerodb mcp stdout", () => {
  test("every line is JSON-RPC, bad input included; every request read is answered before exit", async () => {
    using tmp = tempDir();
    const { stdout, stderr, code } = await feed(
      [
        req(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } }),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        "this is not json",
        '{"jsonrpc": "2.0", "id": 99, "method": ',
        req(2, "tools/list"),
        call(3, "remember", { content: 7 }),
        call(4, "teleport", {}),
        req(5, "no/such/method"),
        JSON.stringify({ id: 6 }),
        "[1,2,3]",
        call(7, "remember", { content: "hello from raw lines" }),
        call(8, "fact_get", { key: "missing" }),
        call(9, "remember", "not an object"),
        req(10, "ping"),
      ],
      tmp.path,
    );
    expect(code).toBe(0);
    expect(stdout.endsWith("\n")).toBe(true);
    const messages = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    for (const m of messages) {
      expect(m.jsonrpc).toBe("2.0");
      expect(typeof m.id).toBe("number");
      expect("result" in m !== "error" in m).toBe(true);
      if ("error" in m) expect(m.error).toEqual({ code: expect.any(Number), message: expect.any(String), ...(m.error.data ? { data: m.error.data } : {}) });
    }
    const byId = new Map(messages.map((m) => [m.id, m]));
    expect([...byId.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 7, 8, 9, 10]);
    expect(byId.get(1).result.serverInfo.name).toBe("zerodb");
    expect(byId.get(2).result.tools.length).toBeGreaterThanOrEqual(9);
    expect(byId.get(3).result).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringMatching(/^invalid_input: content: /) }] });
    expect(byId.get(4).error.code).toBe(-32602);
    expect(byId.get(5).error.code).toBe(-32601);
    expect(byId.get(7).result.structuredContent).toMatchObject({ lsn: 1, duplicate: false });
    expect(byId.get(8).result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^not_found: key: /) }] });
    expect(byId.get(9).error.code).toBe(-32602);
    expect(byId.get(10).result).toEqual({});
    // The malformed lines are noted on stderr, one line each, without a stack trace.
    expect(stderr).toContain("JSON Parse error");
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  test("with stdin closed at once it writes nothing and exits 0", async () => {
    using tmp = tempDir();
    const { stdout, code } = await feed([], tmp.path);
    expect({ stdout, code }).toEqual({ stdout: "", code: 0 });
  });
});
