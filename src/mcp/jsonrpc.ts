/**
 * JSON-RPC 2.0 messages as MCP frames them (MCP 2025-11-25, basic): what a
 * valid message is, and how one is read from and written to a line. The
 * SDK's own check is a zod schema of the whole protocol, which costs a
 * `zerodb mcp` start several milliseconds before `initialize` can be
 * answered (issue 32); this is the same check, written out.
 */
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { isObject } from "../util/json.ts";

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

const isId = (v: unknown): v is RequestId => typeof v === "string" || Number.isSafeInteger(v);
/** Where a request names the task it belongs to, in `_meta`. */
const RELATED_TASK = "io.modelcontextprotocol/related-task";
/** Whether params' or a result's `_meta` is absent or well formed: an object, a progress token an id, a related task named. */
function metaOk(holder: Record<string, unknown>): boolean {
  const meta = holder._meta;
  if (meta === undefined) return true;
  if (!isObject(meta)) return false;
  if (meta.progressToken !== undefined && !isId(meta.progressToken)) return false;
  const task = meta[RELATED_TASK];
  return task === undefined || (isObject(task) && typeof task.taskId === "string");
}
/** Whether `value` has no key beyond `allowed` (the SDK's message schemas are strict). */
const only = (value: Record<string, unknown>, allowed: readonly string[]) => Object.keys(value).every((k) => allowed.includes(k));

/**
 * What `value` is as a JSON-RPC message, or an Error saying why it is none.
 * It accepts what the SDK's `JSONRPCMessageSchema` accepts (checked against
 * it in test/mcp/protocol.test.ts): `params` an object, an id a string or an
 * integer, a response with `result` or `error`, no other member.
 */
export function classify(value: unknown): Classified | Error {
  if (!isObject(value)) return new Error("invalid JSON-RPC message: not an object");
  if (value.jsonrpc !== "2.0") return new Error('invalid JSON-RPC message: jsonrpc must be "2.0"');
  if ("method" in value) {
    if (typeof value.method !== "string") return new Error("invalid JSON-RPC message: method must be a string");
    if (value.params !== undefined && !isObject(value.params)) return new Error("invalid JSON-RPC message: params must be an object");
    if (value.params !== undefined && !metaOk(value.params)) return new Error("invalid JSON-RPC message: params._meta is malformed");
    if (!only(value, ["jsonrpc", "id", "method", "params"])) return new Error("invalid JSON-RPC message: a member JSON-RPC does not have");
    if (!("id" in value)) return { kind: "notification", message: value as unknown as RpcNotification };
    if (!isId(value.id)) return new Error("invalid JSON-RPC message: id must be a string or an integer");
    return { kind: "request", message: value as unknown as RpcRequest };
  }
  if ("result" in value) {
    if (!only(value, ["jsonrpc", "id", "result"]) || !isId(value.id) || !isObject(value.result) || !metaOk(value.result)) {
      return new Error("invalid JSON-RPC message: a result needs an id and an object, and nothing else");
    }
    return { kind: "response", message: value as unknown as JSONRPCMessage };
  }
  if ("error" in value) {
    const e = value.error;
    const wellFormed = isObject(e) && Number.isSafeInteger(e.code) && typeof e.message === "string";
    if (!wellFormed || !only(value, ["jsonrpc", "id", "error"]) || (value.id !== undefined && !isId(value.id))) {
      return new Error("invalid JSON-RPC message: an error needs a code and a message, and nothing else");
    }
    return { kind: "response", message: value as unknown as JSONRPCMessage };
  }
  return new Error("invalid JSON-RPC message: neither a request, a notification nor a response");
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
