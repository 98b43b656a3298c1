/**
 * watchStart (src/mcp/started.ts): a client's start-up is over at its first
 * message after `initialize`, `notifications/initialized` or, from a client
 * that never sends it, its first request; the start-up JIT policy and the
 * store's migration ahead hang on it (src/cli/commands/mcp.ts).
 */
import { describe, expect, test } from "bun:test";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { watchStart } from "../../src/mcp/started.ts";

const initialize: JSONRPCMessage = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
};
const initialized: JSONRPCMessage = { jsonrpc: "2.0", method: "notifications/initialized" };
const request = (id: number, method: string): JSONRPCMessage => ({ jsonrpc: "2.0", id, method });

/** Feeds `messages` through watchStart; what was delivered, and where onStarted came among the deliveries. */
function run(messages: JSONRPCMessage[]): { events: string[] } {
  const inner: Transport = { start: async () => {}, close: async () => {}, send: async () => {} };
  const events: string[] = [];
  const outer = watchStart(inner, () => events.push("started"));
  outer.onmessage = (m) => events.push("method" in m ? m.method : "response");
  for (const m of messages) inner.onmessage?.(m);
  return { events };
}

describe("watchStart", () => {
  test("a client that follows the lifecycle: started at notifications/initialized, once", () => {
    expect(run([initialize, initialized, request(2, "tools/list"), request(3, "tools/call")])).toEqual({
      events: ["initialize", "started", "notifications/initialized", "tools/list", "tools/call"],
    });
  });

  test("a client that never sends notifications/initialized: started before its first request after initialize", () => {
    expect(run([initialize, request(2, "tools/list"), request(3, "ping")])).toEqual({ events: ["initialize", "started", "tools/list", "ping"] });
    expect(run([initialize, request(2, "ping")])).toEqual({ events: ["initialize", "started", "ping"] });
  });

  test("a ping before initialize, or initialize alone, is still start-up", () => {
    expect(run([request(1, "ping"), initialize])).toEqual({ events: ["ping", "initialize"] });
  });

  test("an onStarted that throws is the transport's error; the message is still delivered", () => {
    const inner: Transport = { start: async () => {}, close: async () => {}, send: async () => {} };
    const seen: string[] = [];
    const outer = watchStart(inner, () => {
      throw new Error("no");
    });
    outer.onmessage = (m) => seen.push("method" in m ? m.method : "response");
    outer.onerror = (err) => seen.push(`error: ${err.message}`);
    inner.onmessage?.(initialize);
    inner.onmessage?.(request(2, "tools/list"));
    expect(seen).toEqual(["initialize", "error: no", "tools/list"]);
  });
});
