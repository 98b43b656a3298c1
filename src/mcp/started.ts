/**
 * A transport wrapper that says when a client's start-up is over: at the
 * first message after the `initialize` request, whatever it is. That is
 * `notifications/initialized` from a client that follows the lifecycle
 * (MCP 2025-11-25, lifecycle: initialization); a client that never sends it
 * is done starting by its first request after `initialize` all the same.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Wraps `inner`, calling `onStarted` once, before the first message after `initialize` is handled. */
export function watchStart(inner: Transport, onStarted: () => void): Transport {
  let initializing = false;
  let started = false;
  const outer: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message, options) => inner.send(message, options),
    setProtocolVersion: (v) => inner.setProtocolVersion?.(v),
  };
  inner.onmessage = (message: JSONRPCMessage, extra) => {
    if (!started && "method" in message) {
      // A ping may come before initialize (MCP lifecycle): only what follows initialize counts.
      if (message.method === "initialize" && "id" in message) initializing = true;
      else if (initializing) {
        started = true;
        try {
          onStarted();
        } catch (err) {
          outer.onerror?.(err as Error);
        }
      }
    }
    outer.onmessage?.(message, extra);
  };
  inner.onerror = (err) => outer.onerror?.(err);
  inner.onclose = () => outer.onclose?.();
  return outer;
}
