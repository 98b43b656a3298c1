/**
 * Where captured entries go. Locally, the store's own capture cursors: the
 * batch and its cursor commit in one transaction (Store.capture). Remotely,
 * the HTTP client's Memory, with the cursor in a file in the home and the
 * entries' idempotency keys keeping replays from writing twice (remote-sink.ts).
 */
import type { CaptureCursors, Memory } from "../store/types.ts";

/** The store side of capture: a tenant's memory and capture cursors. */
export interface CaptureSink extends CaptureCursors {
  /** The tenant's memory, for facts and the SessionStart context. */
  readonly memory: Memory;
  /** Releases what the sink holds. */
  close(): void;
}
