/**
 * JSON-RPC 2.0 messages as MCP frames them (MCP 2025-11-25, basic): what a
 * valid message is, and how one is read from and written to a line. The
 * SDK's own check is a zod schema of the whole protocol, which costs a
 * `zerodb mcp` start several milliseconds before `initialize` can be
 * answered (issue 32); this is the same check, written out.
 */
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

/** The error codes of JSON-RPC 2.0 that zerodb answers with. */
export const RpcCode = {
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** An error answered to a request as a JSON-RPC error (a protocol error, not a tool's). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** A request: it has an id and is answered. */
export interface RpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/** A notification: no id, never answered. */
export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

/** A message with its kind told apart. */
export type Classified =
  | { kind: "request"; message: RpcRequest }
  | { kind: "notification"; message: RpcNotification }
  | { kind: "response"; message: JSONRPCMessage };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RequestId => typeof v === "string" || Number.isSafeInteger(v);

/**
 * What `value` is as a JSON-RPC message, or an Error saying why it is none
 * (the same messages the SDK's schema accepts: `params` an object, an id a
 * string or an integer, a response with `result` or `error` but not both).
 */
export function classify(value: unknown): Classified | Error {
  if (!isObject(value)) return new Error("invalid JSON-RPC message: not an object");
  if (value.jsonrpc !== "2.0") return new Error('invalid JSON-RPC message: jsonrpc must be "2.0"');
  if ("method" in value) {
    if (typeof value.method !== "string") return new Error("invalid JSON-RPC message: method must be a string");
    if (value.params !== undefined && !isObject(value.params)) return new Error("invalid JSON-RPC message: params must be an object");
    if (!("id" in value)) return { kind: "notification", message: value as unknown as RpcNotification };
    if (!isId(value.id)) return new Error("invalid JSON-RPC message: id must be a string or an integer");
    return { kind: "request", message: value as unknown as RpcRequest };
  }
  const isResult = "result" in value;
  const isError = "error" in value;
  if (isResult === isError) return new Error("invalid JSON-RPC message: neither a request, a notification nor a response");
  if (isResult && (!isId(value.id) || !isObject(value.result))) return new Error("invalid JSON-RPC message: a result needs an id and an object");
  if (isError) {
    const e = value.error;
    if (!isObject(e) || !Number.isSafeInteger(e.code) || typeof e.message !== "string") return new Error("invalid JSON-RPC message: malformed error");
    if (value.id !== undefined && value.id !== null && !isId(value.id)) return new Error("invalid JSON-RPC message: id must be a string or an integer");
  }
  return { kind: "response", message: value as unknown as JSONRPCMessage };
}

/** One line of the stdio transport as a message; throws the parser's or classify's error. */
export function parseLine(line: string): JSONRPCMessage {
  const c = classify(JSON.parse(line));
  if (c instanceof Error) throw c;
  return c.message as JSONRPCMessage;
}

/** A message as one line of the stdio transport (JSON has no raw newline in it). */
export function serializeLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}
