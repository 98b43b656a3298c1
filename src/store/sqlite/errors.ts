/**
 * SQLite failures as zerodb errors (STYLE.md habit 2): this engine's table
 * of result codes (https://sqlite.org/rescode.html), as PostgreSQL keeps its
 * own (src/store/postgres/errors.ts). The store maps at its boundary, so a
 * door sees a ZeroDbError and never an engine's code.
 */
import { ZeroDbError, toZeroDbError } from "../../errors.ts";

/** Maps anything a SQLite call throws; what is not SQLite's goes as toZeroDbError maps it. The original stays as `cause`. */
export function fromSqliteError(err: unknown): ZeroDbError {
  if (err instanceof ZeroDbError || !(err instanceof Error)) return toZeroDbError(err);
  const code = String((err as { code?: unknown }).code ?? "");
  if (!code.startsWith("SQLITE_")) return toZeroDbError(err);
  if (code.startsWith("SQLITE_FULL") || (code.startsWith("SQLITE_IOERR_WRITE") && /disk|space/i.test(err.message))) {
    return new ZeroDbError("storage_full", "the disk is full: free some space and retry", { cause: err });
  }
  // SQLITE_TOOBIG: a value past SQLite's own length limit (1 GB). zerodb's doors refuse anything near it (4 MiB of
  // content, 16 KiB of meta), so one read back is a damaged record's header claiming a length it never had: a page
  // overwritten with garbage made `quick_check` fail so, where it should report the damage.
  if (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB") || code === "SQLITE_TOOBIG") {
    return new ZeroDbError("corrupt", "the store file is damaged: run `zerodb doctor`", { cause: err });
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new ZeroDbError("unavailable", `the store is busy (${code}): retry`, { cause: err });
  }
  if (code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_PERM")) {
    return new ZeroDbError("unavailable", "the store cannot be opened for writing: check the data dir's permissions", { cause: err });
  }
  if (code.startsWith("SQLITE_IOERR")) {
    return new ZeroDbError("unavailable", "the store could not be read or written (I/O error)", { cause: err });
  }
  return toZeroDbError(err);
}

/** A generator whose failures are mapped as they come (a backup's chunks are read after backup() has returned). */
export function* mapped<T>(items: Iterable<T>): Generator<T> {
  try {
    yield* items;
  } catch (err) {
    throw fromSqliteError(err);
  }
}
