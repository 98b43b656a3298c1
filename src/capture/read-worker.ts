/**
 * The worker of read-ahead.ts: reads the batches it is asked for, keeping
 * the files of the last two sources open between them (a `.zst` rollout is
 * decompressed once), and closes them and itself when told.
 */
import { plainlyGoodBatch } from "../schema/capture-batch.ts";
import { prepareTurns } from "../store/capture-cursors.ts";
import type { ReadReply, ReadRequest } from "./read-ahead.ts";
import { opencodeSource } from "./opencode.ts";
import { SourceFile, readBatch } from "./read-batch.ts";
import type { Source } from "./sources.ts";

declare const self: Worker;

// A worker reads for a backfill (capture sync): the normal JIT policy, not the binary's start-up one (src/cli/jit.ts).
Bun.unsafe.setJITPolicy?.(1);

/** The files of the last sources read (two: the one being read, and the next one read ahead). */
const files = new Map<string, SourceFile>();
const KEEP = 2;
/** The last batch stopped between the chunks of a line. */
let insideLine = false;

self.onmessage = (e: MessageEvent<ReadRequest | { close: true }>) => {
  const msg = e.data;
  if ("close" in msg) {
    for (const f of files.values()) f.close();
    files.clear();
    process.exit(0);
  }
  const { id, opts } = msg;
  // An opencode session is read through the reader its source opens: made again here from the database and session.
  const source: Source = msg.source.opencode ? opencodeSource(msg.source.opencode.db, msg.source.opencode.session) : msg.source;
  const name = `${source.key}\u0000${source.path}`;
  let file = files.get(name);
  if (file === undefined) {
    file = new SourceFile(source);
    const oldest = files.size >= KEEP ? files.keys().next().value : undefined;
    if (oldest !== undefined) {
      files.get(oldest)?.close();
      files.delete(oldest);
    }
  } else files.delete(name);
  // Most recently used last.
  files.set(name, file);
  const warnings = new Set<string>();
  let reply: ReadReply;
  // A batch that stopped inside a line is followed by one that reads that line again: let the last reading go first
  // (as run.ts does on the main thread), so the worker's memory follows one line, not the batches.
  if (insideLine) Bun.gc(true);
  try {
    const read = readBatch(source, file, opts, warnings);
    insideLine = read !== undefined && read.batch.end.chunk > 0;
    // The store's hashes, data, index text and row checksums of each entry, here rather than on the thread that commits.
    if (read !== undefined && msg.prepare) {
      read.batch.prepared = prepareTurns(read.batch, msg.storeId);
      if (msg.storeId !== undefined) read.batch.preparedFor = msg.storeId;
    }
    // Checked here, on the thread with time for it: the commit takes the word of this process's own worker.
    reply = { id, read, warnings: [...warnings], ...(read !== undefined && plainlyGoodBatch(read.batch) ? { checked: true } : {}) };
  } catch (err) {
    reply = { id, warnings: [], error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
