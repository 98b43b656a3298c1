/**
 * The MCP protocol as zerodb serves it without the SDK's Server (src/mcp/
 * server.ts, jsonrpc.ts): raw JSON-RPC messages in, what was answered out.
 * The SDK client's side of the same is in server.test.ts and the e2e tests.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { RpcCode, classify, parseLine } from "../../src/mcp/jsonrpc.ts";
import { PROTOCOL_VERSIONS, createMcpServer } from "../../src/mcp/server.ts";
import { defineTool } from "../../src/mcp/tool.ts";
import type { Memory } from "../../src/store/types.ts";
import { tempDir } from "../helpers.ts";

/** A tool that answers once `release` is called, counting the runs that finished. */
function gatedTool() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const runs = { finished: 0 };
  const tool = defineTool({
    name: "wait",
    title: "Wait",
    description: "waits",
    input: z.object({}).strict(),
    run: async () => {
      await gate;
      runs.finished++;
      return { text: "done", structured: { done: true } };
    },
  });
  return { tool, release, runs };
}

/** A server over a transport that records what it sends and the errors it reports. */
async function raw(dir: string) {
  const { tool, release, runs } = gatedTool();
  const memory = { tenant: "local" } as Memory;
  const server = createMcpServer({ memory, cwd: dir, spill: { root: join(dir, "spill"), maxInlineBytes: 65536 }, tools: [tool], log: () => {} });
  const sent: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed = 0;
  const transport: Transport = { start: async () => {}, close: async () => transport.onclose?.(), send: async (m) => void sent.push(m) };
  server.onerror = (e) => errors.push(e.message);
  server.onclose = () => closed++;
  await server.connect(transport);
  /** Waits for `answers` messages sent and `finished` tool runs done (no timing: as long as it takes), then one more turn. */
  const settle = async (answers = 0, finished = 0) => {
    while (sent.length < answers || runs.finished < finished) await Bun.sleep(2);
    await Bun.sleep(0);
  };
  return {
    server,
    sent,
    errors,
    release,
    closed: () => closed,
    deliver: (m: unknown) => transport.onmessage?.(m as JSONRPCMessage),
    settle,
    answer: (id: number) => sent.find((m) => "id" in m && m.id === id) as Record<string, any> | undefined,
  };
}

const init = (id: number, protocolVersion: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

describe("MCP lifecycle", () => {
  test("initialize: a supported version is answered as asked, any other with the newest; the server says who it is", async () => {
    using tmp = tempDir();
    const s = await raw(tmp.path);
    s.deliver(init(1, "2025-06-18"));
    s.deliver(init(2, "1999-01-01"));
    await s.settle(2);
    expect(s.answer(1)?.result).toMatchObject({ protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "zerodb" } });
    expect(s.answer(1)?.result.instructions).toContain("durable memory");
    expect(s.answer(2)?.result.protocolVersion).toBe(PROTOCOL_VERSIONS[0]);
    expect(s.server.getClientVersion()).toEqual({ name: "raw", version: "1" });
  });

  test("initialize without a protocol version or client info is invalid params, and nothing is remembered", async () => {
    using tmp = tempDir();
    const s = await raw(tmp.path);
    s.deliver(init(1, 20250618));
    s.deliver({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {} } });
    await s.settle(2);
    expect(s.answer(1)?.error).toEqual({ code: -32602, message: expect.stringContaining("protocolVersion") });
    expect(s.answer(2)?.error).toEqual({ code: -32602, message: expect.stringContaining("clientInfo") });
    expect(s.server.getClientVersion()).toBeUndefined();
  });

  test("ping is answered with an empty result, an unknown method with method-not-found", async () => {
    using tmp = tempDir();
    const s = await raw(tmp.path);
    s.deliver({ jsonrpc: "2.0", id: "p", method: "ping" });
    s.deliver({ jsonrpc: "2.0", id: 2, method: "resources/list" });
    await s.settle(2);
    expect(s.sent).toContainEqual({ jsonrpc: "2.0", id: "p", result: {} });
    expect(s.answer(2)?.error.code).toBe(-32601);
  });

  test("tools/call with a missing name or arguments that are not an object is invalid params", async () => {
    using tmp = tempDir();
    const s = await raw(tmp.path);
    s.deliver({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } });
    s.deliver({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "wait", arguments: [1] } });
    s.deliver({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "teleport" } });
    await s.settle(3);
    expect(s.answer(1)?.error).toEqual({ code: -32602, message: expect.stringContaining("name") });
    expect(s.answer(2)?.error).toEqual({ code: -32602, message: expect.stringContaining("arguments") });
    expect(s.answer(3)?.error).toEqual({ code: -32602, message: "unknown tool: teleport" });
  });

  test("a cancelled request is not answered; the others are", async () => {
    using tmp = tempDir();
    const s = await raw(tmp.path);
    s.deliver({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "wait", arguments: {} } });
    s.deliver({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "wait", arguments: {} } });
    s.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "user" } });
    s.release();
    await s.settle(1, 2);
    expect(s.answer(1)).toBeUndefined();
    expect(s.answer(2)?.result.structuredContent).toEqual({ done: true });
  });

  test("two requests under one id are both answered; cancelling that id drops the newest only", async () => {
    using tmp = tempDir();
    const s = await raw(tmp.path);
    const wait = { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "wait", arguments: {} } };
    s.deliver(wait);
    s.deliver(wait);
    s.release();
    await s.settle(2);
    expect(s.sent.filter((m) => "id" in m && m.id === 5)).toHaveLength(2);
  });

  test("what is not a message is reported and never answered; a client's response is ignored", async () => {
    using tmp = tempDir();
    const s = await raw(tmp.path);
    for (const bad of [
      [1, 2, 3],
      { id: 6 },
      { jsonrpc: "1.0", id: 7, method: "ping" },
      { jsonrpc: "2.0", id: 8, method: "ping", params: "x" },
      { jsonrpc: "2.0", id: 1.5, method: "ping" },
      { jsonrpc: "2.0", id: null, method: "ping" },
      { jsonrpc: "2.0", id: 9, result: {}, error: { code: 1, message: "m" } },
    ]) {
      s.deliver(bad);
    }
    s.deliver({ jsonrpc: "2.0", id: 10, result: {} });
    await s.settle();
    expect(s.sent).toEqual([]);
    expect(s.errors).toHaveLength(7);
    for (const e of s.errors) expect(e).toStartWith("invalid JSON-RPC message");
  });

  test("after close, an answer still being worked out is not sent", async () => {
    using tmp = tempDir();
    const s = await raw(tmp.path);
    s.deliver({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "wait", arguments: {} } });
    await s.server.close();
    s.release();
    await s.settle(0, 1);
    expect(s.sent).toEqual([]);
    expect(s.closed()).toBe(1);
  });
});

describe("jsonrpc lines", () => {
  test("a line is parsed and checked; a malformed one throws the parser's error", () => {
    expect(parseLine('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({ jsonrpc: "2.0", id: 1, method: "ping" });
    expect(() => parseLine("this is not json")).toThrow(/JSON Parse error/);
    expect(() => parseLine('{"jsonrpc":"2.0","id":{},"method":"ping"}')).toThrow(/id must be a string or an integer/);
  });

  test("classify tells requests, notifications and responses apart", () => {
    expect(classify({ jsonrpc: "2.0", id: "a", method: "m" })).toMatchObject({ kind: "request" });
    expect(classify({ jsonrpc: "2.0", method: "m" })).toMatchObject({ kind: "notification" });
    expect(classify({ jsonrpc: "2.0", id: 3, error: { code: -1, message: "x" } })).toMatchObject({ kind: "response" });
    expect(classify({ jsonrpc: "2.0", error: { code: -1, message: "x" } })).toMatchObject({ kind: "response" });
    expect(classify({ jsonrpc: "2.0", id: 3, error: { code: "x", message: "x" } })).toBeInstanceOf(Error);
  });

  test("the protocol versions and error codes are the SDK's, so they do not drift from it", () => {
    expect(PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    expect(RpcCode).toEqual({
      InvalidRequest: ErrorCode.InvalidRequest,
      MethodNotFound: ErrorCode.MethodNotFound,
      InvalidParams: ErrorCode.InvalidParams,
      InternalError: ErrorCode.InternalError,
    });
  });

  test("classify accepts exactly what the SDK's JSONRPCMessageSchema accepts", () => {
    const bases: Record<string, unknown>[] = [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: {}, _meta: { progressToken: 3 } } },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      { jsonrpc: "2.0", id: "a", result: { tools: [], _meta: {} } },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "m", data: { x: 1 } } },
      { jsonrpc: "2.0", id: 3, method: "ping", params: { _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } } },
    ];
    const values: unknown[] = [undefined, null, 0, 7, -1, 1.5, 2 ** 60, "", "s", "2.0", true, [], [1], {}, { a: 1 }];
    /** Every message one change away from a base: a member replaced, removed or added, one level down too. */
    const variants: unknown[] = [];
    const vary = (obj: Record<string, unknown>, set: (o: Record<string, unknown>) => void) => {
      for (const key of [...Object.keys(obj), "extra"]) {
        for (const v of values) {
          const copy = structuredClone(obj);
          if (v === undefined) delete copy[key];
          else copy[key] = v;
          set(copy);
        }
      }
    };
    for (const base of bases) {
      variants.push(base);
      vary(base, (m) => variants.push(m));
      for (const inner of ["params", "result", "error"] as const) {
        const o = base[inner] as Record<string, unknown> | undefined;
        if (!o) continue;
        vary(o, (v) => variants.push({ ...base, [inner]: v }));
        const meta = o._meta as Record<string, unknown> | undefined;
        if (meta) vary(meta, (v) => variants.push({ ...base, [inner]: { ...o, _meta: v } }));
      }
    }
    variants.push(...values);
    const disagree = variants.filter((m) => !(classify(m) instanceof Error) !== JSONRPCMessageSchema.safeParse(m).success).map((m) => JSON.stringify(m));
    expect(variants.length).toBeGreaterThan(500);
    expect(disagree).toEqual([]);
  });
});
