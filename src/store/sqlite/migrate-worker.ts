/**
 * The worker of migrate-ahead.ts: opens the store of the data dir it is
 * given, which migrates it, closes it and says how it went. bun:sqlite is
 * synchronous: on the main thread a long migration would stop `zerodb mcp`
 * from answering anything until it ends.
 */
import { openDatabase } from "./open.ts";

declare const self: Worker;

/** What the worker is asked. */
export interface MigrateRequest {
  dataDir: string;
}

/** Its answer: the error's message when the open failed (the main thread's own open reports it then). */
export interface MigrateReply {
  error?: string;
}

// A migration's loops run long: the normal JIT policy, not the binary's start-up one (src/cli/jit.ts).
Bun.unsafe.setJITPolicy?.(1);

self.onmessage = (e: MessageEvent<MigrateRequest>) => {
  let reply: MigrateReply = {};
  try {
    openDatabase(e.data.dataDir).close();
  } catch (err) {
    reply = { error: (err as Error)?.message ?? String(err) };
  }
  self.postMessage(reply);
};
