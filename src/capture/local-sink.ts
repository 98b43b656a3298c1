/** The capture sink of a local store: its capture cursors commit batch and cursor in one transaction. */
import type { Store, WorkTrace } from "../store/types.ts";
import type { CaptureSink } from "./sink.ts";

/** A sink over an open local store; `trace` counts the engine's work from then on, where the engine can. */
export function localSink(store: Store, tenant: string, opts: { trace?: boolean } = {}): CaptureSink & { trace?: WorkTrace } {
  const cursors = store.capture(tenant);
  const trace = opts.trace ? store.trace?.() : undefined;
  return {
    memory: store.memory(tenant),
    ...(cursors.storeId !== undefined ? { storeId: cursors.storeId } : {}),
    ...(trace ? { trace } : {}),
    cursor: (source) => cursors.cursor(source),
    cursors: () => cursors.cursors(),
    commit: (batch) => cursors.commit(batch),
    close: () => store.close(),
  };
}
