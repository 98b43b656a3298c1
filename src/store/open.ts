/**
 * Opening a store: the one place outside an engine's folder that names one
 * (DESIGN.md 12, STYLE.md habit 1). Doors ask for a Store by options and
 * never learn which engine answered; a second engine is a new branch here
 * and a new folder, nothing else. The engine is loaded only when a store is
 * opened, so commands that need none do not pay for it (DESIGN.md 10).
 */
import type { Store } from "./types.ts";

/** What opening a store takes; engine-neutral, from the resolved config. */
export interface OpenStoreOptions {
  /** The data dir: the store file and the objects beside it (DESIGN.md 2). */
  dataDir: string;
  /** Largest object accepted, in bytes (config `max_object_bytes`). */
  maxObjectBytes?: number;
  /** Take secrets out of every write (DESIGN.md 7.2); false only by the user's config. Default true. */
  redact?: boolean;
  /**
   * A postgres:// URL: the store lives in that PostgreSQL database (DESIGN.md 12),
   * object bytes included; the data dir only hands over object bytes an older
   * zerodb kept there. Unset: the SQLite store of the data dir.
   */
  database?: string;
  /** Progress of long migrations (a search index rebuilt): what, how far, out of how many. */
  onProgress?: (what: string, done: number, total: number) => void;
}

/** Opens (creating if needed) the store the options name. */
export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  if (opts.database) {
    const { openPostgresStore } = await import("./postgres/store.ts");
    return openPostgresStore({ url: opts.database, dataDir: opts.dataDir, maxObjectBytes: opts.maxObjectBytes, redact: opts.redact });
  }
  const { openSqliteStore } = await import("./sqlite/store.ts");
  const { dataDir, database: _database, ...rest } = opts;
  return openSqliteStore(dataDir, rest);
}

/** What a restore rebuilt. */
export interface RestoreResult {
  /** Records, tokens, capture cursors and objects the restored store holds. */
  records: number;
  tokens: number;
  cursors: number;
  objects: number;
  /** The last snapshot's LSN: the restored store's next record comes after it. */
  last_lsn: number;
  /** The files restored: a full backup and the increments after it. */
  files: number;
  data_dir: string;
  /** The store's id, kept: the restored store is the same store (README: a restored copy and its source). */
  store_id: string;
  tenant: string | null;
}

/**
 * Rebuilds a store from a full backup and the increments that continue it,
 * in order, into an empty or new data dir, every record and object verified
 * before it appears (DESIGN.md 15). Backups are the SQLite engine's: restore
 * builds a local store.
 */
export async function restoreStore(files: string[], dataDir: string): Promise<RestoreResult> {
  const { checkRestoreTarget, restoreBackup } = await import("./sqlite/restore.ts");
  // Refused before any file is read: a restore never lands on a store (it would bring back what was forgotten).
  checkRestoreTarget(dataDir);
  return restoreBackup(files, dataDir);
}
