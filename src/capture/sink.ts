/**
 * Where captured entries go. Locally, the store itself: the batch and its
 * cursor commit in one transaction (sqlite/capture.ts). Remotely, the HTTP
 * client's Memory, with the cursor in a file in the home and the entries'
 * idempotency keys keeping replays from writing twice (remote-sink.ts).
 */
import type { CaptureBatch, CommitOutcome, CursorRow } from "../store/capture.ts";
import type { Memory } from "../store/types.ts";

/** The store side of capture. */
export interface CaptureSink {
  /** The tenant's memory, for facts and the SessionStart context. */
  readonly memory: Memory;
  /** The cursor of a source (its capture session fixed at the first capture), or undefined. */
  cursor(source: string): Promise<CursorRow | undefined>;
  /** Every cursor, by source (for `capture status`). */
  cursors(): Promise<CursorRow[]>;
  /** Appends a batch and moves its cursor, re-checking the cursor first (see commitCapture). */
  commit(batch: CaptureBatch): Promise<CommitOutcome>;
  /** Releases what the sink holds. */
  close(): void;
}
