/**
 * Migrating a store ahead of its first use (`zerodb mcp`, DESIGN.md 6.2 and
 * 10): when the store file's schema is older than this build's, a worker
 * opens it (migrate-worker.ts) while the caller's thread keeps serving, so
 * the first tool call waits for what is left of the migration rather than
 * all of it, and the server answers `tools/list` and `ping` meanwhile. A
 * store that is current, new or unreadable is left alone: opening it costs
 * milliseconds, and its errors are the opener's to report.
 */
import { SCHEMA_VERSION, fileSchemaVersion } from "./schema-version.ts";

/** A migration running ahead: `done` settles when it ended (never rejects); `stop` ends the worker. */
export interface MigrationAhead {
  done: Promise<void>;
  stop(): void;
}

/** Starts migrating the store of `dataDir` in a worker when it needs it; undefined when it does not. */
export function migrateAhead(dataDir: string, script = new URL("./migrate-worker.ts", import.meta.url).href): MigrationAhead | undefined {
  const version = fileSchemaVersion(dataDir);
  if (version === undefined || version >= SCHEMA_VERSION) return undefined;
  let worker: Worker;
  try {
    worker = new Worker(script);
  } catch {
    // No worker: the first open migrates on its own thread, as it always could.
    return undefined;
  }
  let settle!: () => void;
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const end = () => {
    settle();
    worker.terminate();
  };
  // Whatever the outcome (migrated, failed, the worker died), the opener's own open follows and reports it.
  worker.addEventListener("message", end);
  worker.addEventListener("error", end);
  worker.addEventListener("close", () => settle());
  worker.postMessage({ dataDir });
  return { done, stop: end };
}
