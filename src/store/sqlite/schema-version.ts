/**
 * The schema version a store file holds, read from its header without
 * loading bun:sqlite or the migrations, so `zerodb mcp` can tell at start
 * whether opening its store will migrate it (migrate-ahead.ts).
 */
import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { DB_FILE } from "./paths.ts";

/** The schema version this build migrates stores to: MIGRATIONS.length (test/store/schema-version.test.ts holds them equal). */
export const SCHEMA_VERSION = 10;

const MAGIC = "SQLite format 3\u0000";

/**
 * The `user_version` in the store file's header (offset 60, a 4-byte
 * big-endian integer: https://sqlite.org/fileformat2.html#database_header),
 * or undefined when there is no store file or it is not an SQLite database.
 * A WAL not yet checkpointed may hold a newer page 1: the header is then
 * older than the schema, never newer, so a store it calls current is current.
 */
export function fileSchemaVersion(dataDir: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(join(dataDir, DB_FILE), "r");
  } catch {
    return undefined;
  }
  try {
    const header = Buffer.alloc(64);
    if (readSync(fd, header, 0, 64, 0) < 64 || header.toString("latin1", 0, 16) !== MAGIC) return undefined;
    return header.readUInt32BE(60);
  } catch {
    // A directory in the store file's place, or an I/O error: the open reports it.
    return undefined;
  } finally {
    closeSync(fd);
  }
}
