/** The capture sink of a local store: batch and cursor in one transaction (sqlite/capture.ts). */
import type { Store } from "../store/types.ts";
import type { SqliteStore } from "../store/sqlite/store.ts";
import { commitCapture, getCursor, listCursors } from "../store/sqlite/capture.ts";
import { type SqlTrace, traceDatabase } from "../store/sqlite/trace.ts";
import { ZeroDbError } from "../errors.ts";
import type { CaptureSink } from "./sink.ts";

/** A sink over an open local store; `trace` counts the SQL the store runs from then on. */
export function localSink(store: Store, tenant: string, opts: { trace?: boolean } = {}): CaptureSink & { trace?: SqlTrace } {
  const db = (store as Partial<SqliteStore>).db;
  if (!db) throw new ZeroDbError("internal", "capture needs the SQLite store");
  const trace = opts.trace ? traceDatabase(db) : undefined;
  const memory = store.memory(tenant);
  return {
    memory,
    ...(trace ? { trace } : {}),
    cursor: async (source) => getCursor(db, tenant, source),
    cursors: async () => listCursors(db, tenant),
    commit: async (batch) => commitCapture(db, tenant, batch),
    close: () => store.close(),
  };
}
