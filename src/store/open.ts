/**
 * Opening a store: the one place outside an engine's folder that names one
 * (DESIGN.md 12, STYLE.md habit 1). Doors ask for a Store by options and
 * never learn which engine answered; a second engine is a new branch here
 * and a new folder, nothing else. The engine is loaded only when a store is
 * opened, so commands that need none do not pay for it (DESIGN.md 10).
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ZeroDbError } from "../errors.ts";
import { type MigrationAhead, migrateAhead } from "./sqlite/migrate-ahead.ts";
import type { RestoreResult, Store } from "./types.ts";

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
    return openPostgresStore({
      url: opts.database,
      dataDir: opts.dataDir,
      maxObjectBytes: opts.maxObjectBytes,
      redact: opts.redact,
      onProgress: opts.onProgress,
    });
  }
  const { openSqliteStore } = await import("./sqlite/store.ts");
  const { dataDir, database: _database, ...rest } = opts;
  return openSqliteStore(dataDir, rest);
}

/**
 * Starts migrating the store the options name ahead of its first open, off
 * the caller's thread, when it needs a migration (sqlite/migrate-ahead.ts);
 * undefined when it does not, or on PostgreSQL (whose open awaits its
 * migration without stopping the event loop).
 */
export function migrateStoreAhead(opts: Pick<OpenStoreOptions, "dataDir" | "database">): MigrationAhead | undefined {
  return opts.database ? undefined : migrateAhead(opts.dataDir);
}

/**
 * Rebuilds a store from a full backup and the increments that continue it,
 * in order, every record and object verified before it appears (DESIGN.md
 * 15): into an empty or new data dir, or (`database`) into an empty
 * PostgreSQL database. Backups are the SQLite engine's: a database restore
 * rebuilds the SQLite store first in a scratch dir under `scratch` (all of
 * restore's checks), then moves its records and the bytes of its objects
 * into the database in one transaction, and removes the scratch dir. Tokens
 * and capture cursors are the source machine's and stay there.
 */
export async function restoreStore(
  files: string[],
  target: { dataDir: string } | { database: string; scratch: string; maxObjectBytes?: number },
): Promise<RestoreResult> {
  const { checkRestoreTarget, restoreBackup } = await import("./sqlite/backup/restore.ts");
  if ("dataDir" in target) {
    // Refused before any file is read: a restore never lands on a store (it would bring back what was forgotten).
    checkRestoreTarget(target.dataDir);
    return restoreBackup(files, target.dataDir);
  }
  const db = await openStore({ dataDir: target.scratch, database: target.database, maxObjectBytes: target.maxObjectBytes });
  let scratch: string | undefined;
  let local: Store | undefined;
  try {
    if (!db.importWithBlobs) throw new ZeroDbError("invalid_input", "database: this engine cannot take a restore", { field: "database" });
    for await (const _ of db.exportTape()) {
      throw new ZeroDbError("conflict", `database ${db.dataDir} is not empty: restore only rebuilds into an empty database (it never merges into a store)`, {
        field: "database",
      });
    }
    removeDeadScratch(target.scratch);
    scratch = mkdtempSync(join(target.scratch, `.restore-${process.pid}-`));
    const rebuilt = await restoreBackup(files, join(scratch, "data"));
    const source = await openStore({ dataDir: join(scratch, "data"), maxObjectBytes: target.maxObjectBytes });
    local = source;
    // The digests live object records reference (each once), with a tenant that may read it.
    const refs = new Map<string, string>();
    for await (const rec of source.exportTape()) {
      if (rec.kind === "object" && !("forgotten_by" in rec) && !refs.has(rec.object)) refs.set(rec.object, rec.tenant);
    }
    async function* blobs() {
      for (const [digest, tenant] of refs) {
        const body = await source.memory(tenant).objectGet({ object: digest });
        yield { digest, bytes: () => body.read() };
      }
    }
    const moved = await db.importWithBlobs(source.exportTape(), blobs());
    return { ...rebuilt, records: moved.records, objects: moved.objects, last_lsn: moved.last_lsn, tokens: 0, cursors: 0, data_dir: db.dataDir };
  } finally {
    local?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    db.close();
  }
}

/** Scratch dirs of database restores whose process is gone (killed mid-restore): removed. */
function removeDeadScratch(parent: string): void {
  for (const name of readdirSync(parent)) {
    const pid = /^\.restore-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid) continue;
    try {
      process.kill(Number(pid), 0);
    } catch (err) {
      if ((err as { code?: string }).code === "ESRCH") rmSync(join(parent, name), { recursive: true, force: true });
    }
  }
}
