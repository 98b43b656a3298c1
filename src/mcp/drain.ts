/**
 * A transport wrapper that knows which requests are still unanswered, so the
 * server can finish them before it closes: a client may write its requests
 * and close stdin at once, and the server sends no answer once it is closed.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

/** A transport that can be closed once every request it delivered has been answered. */
export interface DrainingTransport extends Transport {
  /** Resolves once no request is unanswered (at once when none is). */
  drained(): Promise<void>;
}

/** Wraps `inner`, counting requests delivered and answers (or cancellations) seen. */
export function draining(inner: Transport): DrainingTransport {
  const pending = new Set<RequestId>();
  let waiters: (() => void)[] = [];
  const settle = (id: RequestId | undefined) => {
    if (id === undefined || !pending.delete(id) || pending.size > 0) return;
    const ws = waiters;
    waiters = [];
    for (const w of ws) w();
  };

  const outer: DrainingTransport = {
    start: () => inner.start(),
    close: () => inner.close(),
    async send(message, options) {
      await inner.send(message, options);
      if (!("method" in message) && "id" in message) settle(message.id);
    },
    drained: () => (pending.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    setProtocolVersion: (v) => inner.setProtocolVersion?.(v),
  };
  inner.onmessage = (message: JSONRPCMessage, extra) => {
    if ("method" in message && "id" in message) pending.add(message.id);
    // A cancelled request gets no answer (MCP: cancellation), so it no longer holds the close.
    if ("method" in message && message.method === "notifications/cancelled" && !("id" in message)) {
      settle((message.params as { requestId?: RequestId } | undefined)?.requestId);
    }
    outer.onmessage?.(message, extra);
  };
  inner.onerror = (err) => outer.onerror?.(err);
  inner.onclose = () => outer.onclose?.();
  return outer;
}
