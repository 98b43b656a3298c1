/**
 * `zerodb mcp` on stdin/stdout (DESIGN.md 6.2): the one place the MCP server
 * is bound to stdio. stdout carries only JSON-RPC; every log line goes to
 * stderr. The server runs until stdin ends (after answering what it read),
 * stdout breaks, or a signal arrives.
 */
import { CONTENT_MAX_BYTES } from "../limits.ts";
import { draining } from "./drain.ts";
import { LineTransport } from "./line-transport.ts";
import type { McpServer } from "./server.ts";
import { watchStart } from "./started.ts";

/**
 * The largest JSON-RPC line accepted. A remember at the 4 MiB content limit
 * may be escaped to six bytes per character in JSON (\u0000), so a line up to
 * that must still reach the validator, which then answers `too_large`; a
 * longer line is answered with a JSON-RPC error and the server goes on.
 */
export const MAX_LINE_BYTES = 6 * CONTENT_MAX_BYTES + 1024 * 1024;

/** How serveStdio tells its caller about the connection. */
export interface StdioOptions {
  /** Called once the client's start-up is over (started.ts): its first message after `initialize`. */
  onStarted?: () => void;
}

/** Serves `server` over this process's stdin and stdout until the connection ends. */
export async function serveStdio(server: McpServer, log: (line: string) => void, opts: StdioOptions = {}): Promise<void> {
  const line = new LineTransport(process.stdin, process.stdout, MAX_LINE_BYTES);
  const transport = draining(opts.onStarted ? watchStart(line, opts.onStarted) : line);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  // A malformed line or an invalid message is dropped with a note on stderr; nothing reaches stdout.
  server.onerror = (err) => log(`zerodb mcp: ${err.message.split("\n")[0]}`);
  let closing = false;
  const close = (why: string) => {
    if (closing) return;
    closing = true;
    if (why) log(`zerodb mcp: ${why}, closing`);
    void server.close();
  };
  const onEnd = () => void transport.drained().then(() => close(""));
  const onBrokenOut = () => close("stdout is closed");
  const onSignal = (signal: string) => close(`${signal} received`);
  process.stdin.once("end", onEnd);
  process.stdout.once("error", onBrokenOut);
  const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
  for (const s of signals) process.once(s, onSignal);
  // Someone ran it by hand: say what it is, on stderr, since stdout is the protocol's.
  if (process.stdin.isTTY) log("zerodb mcp: serving MCP on stdin/stdout; agent harnesses start this (see zerodb connect). Ctrl-D ends it.");
  try {
    await server.connect(transport);
    await closed;
  } finally {
    process.stdin.off("end", onEnd);
    process.stdout.off("error", onBrokenOut);
    for (const s of signals) process.off(s, onSignal);
  }
}
