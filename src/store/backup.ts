/**
 * Backup and restore, engine-neutral face (issue 20, DESIGN.md 15). Built for
 * the SQLite engine only; a PostgreSQL store is refused with what to use.
 */
import { join } from "node:path";
import { ZeroDbError } from "../errors.ts";
import type { Store } from "./types.ts";

/** What a finished backup held. */
export type { BackupCounts } from "./sqlite/backup.ts";
export type { RestoreResult } from "./sqlite/restore.ts";

/** The backup's bytes from one snapshot of `store`; `counts` is complete once they are all read. */
export async function backupOf(
  store: Store,
  opts: { tenant?: string },
): Promise<{ chunks: Iterable<Uint8Array>; counts: import("./sqlite/backup.ts").BackupCounts }> {
  if (!("db" in store)) {
    throw new ZeroDbError("invalid_input", "backup works on the local SQLite store; back up a PostgreSQL store with pg_dump and its data dir's objects", {
      field: "database",
    });
  }
  const [{ backupChunks }, { createFsBlobStore }] = await Promise.all([import("./sqlite/backup.ts"), import("../objects/fs-store.ts")]);
  const db = (store as unknown as { db: import("bun:sqlite").Database }).db;
  const counts = { records: 0, objects: 0, last_lsn: 0 };
  const blobs = createFsBlobStore(join(store.dataDir, "objects"));
  return { chunks: backupChunks(db, blobs, { ...opts, counts }), counts };
}

/** Restores a backup file into an empty or new data dir (the SQLite engine). */
export async function restoreInto(file: string, dataDir: string): Promise<import("./sqlite/restore.ts").RestoreResult> {
  const { restoreBackup } = await import("./sqlite/restore.ts");
  return restoreBackup(file, dataDir);
}

/** Refuses a restore target that holds anything, before anything is read. */
export async function checkRestoreTarget(dataDir: string): Promise<void> {
  const { checkRestoreTarget } = await import("./sqlite/restore.ts");
  checkRestoreTarget(dataDir);
}
