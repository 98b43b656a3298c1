/**
 * The worker of read-ahead.ts: reads the batches it is asked for, keeping
 * the current source's file open between them (a `.zst` rollout is
 * decompressed once), and closes it and itself when told.
 */
import { prepareTurns } from "../store/capture.ts";
import type { ReadReply, ReadRequest } from "./read-ahead.ts";
import { SourceFile, readBatch } from "./read-batch.ts";

declare const self: Worker;

let file: SourceFile | undefined;

self.onmessage = (e: MessageEvent<ReadRequest | { close: true }>) => {
  const msg = e.data;
  if ("close" in msg) {
    file?.close();
    file = undefined;
    process.exit(0);
  }
  const { id, source, opts } = msg;
  if (file === undefined || file.source.key !== source.key || file.source.path !== source.path) {
    file?.close();
    file = new SourceFile(source);
  }
  const warnings = new Set<string>();
  let reply: ReadReply;
  try {
    const read = readBatch(source, file, opts, warnings);
    // The store's hashes and index text of each entry, here rather than on the thread that commits.
    if (read !== undefined) read.batch.prepared = prepareTurns(read.batch);
    reply = { id, read, warnings: [...warnings] };
  } catch (err) {
    reply = { id, warnings: [], error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
