/**
 * Issue 31: SQLite's error table has one home, the engine's folder
 * (src/store/sqlite/errors.ts), as PostgreSQL's has its own; the root
 * toZeroDbError knows no engine's codes.
 */
import { describe, expect, test } from "bun:test";
import { ZeroDbError, toZeroDbError } from "../../src/errors.ts";
import { fromSqliteError, mapped } from "../../src/store/sqlite/errors.ts";

/** An error as bun:sqlite throws one: its result code in `code`. */
function sqliteError(code: string, message = "disk I/O error"): Error {
  return Object.assign(new Error(message), { code });
}

describe("SQLite's failures as zerodb errors", () => {
  test("each result code family maps to its zerodb code, keeping the original as cause", () => {
    const codes = Object.fromEntries(
      [
        "SQLITE_FULL",
        "SQLITE_CORRUPT_INDEX",
        "SQLITE_NOTADB",
        "SQLITE_TOOBIG",
        "SQLITE_BUSY_SNAPSHOT",
        "SQLITE_LOCKED",
        "SQLITE_READONLY",
        "SQLITE_IOERR_READ",
        "SQLITE_CONSTRAINT",
      ].map((c) => [c, fromSqliteError(sqliteError(c)).code]),
    );
    expect(codes).toEqual({
      SQLITE_FULL: "storage_full",
      SQLITE_CORRUPT_INDEX: "corrupt",
      SQLITE_NOTADB: "corrupt",
      SQLITE_TOOBIG: "corrupt",
      SQLITE_BUSY_SNAPSHOT: "unavailable",
      SQLITE_LOCKED: "unavailable",
      SQLITE_READONLY: "unavailable",
      SQLITE_IOERR_READ: "unavailable",
      SQLITE_CONSTRAINT: "internal",
    });
    const raw = sqliteError("SQLITE_IOERR_WRITE", "no space left on device");
    const e = fromSqliteError(raw);
    expect({ code: e.code, message: e.message, cause: e.cause }).toEqual({
      code: "storage_full",
      message: "the disk is full: free some space and retry",
      cause: raw,
    });
  });

  test("what is not SQLite's is mapped as everywhere else: a ZeroDbError as it is, ENOSPC as full, the rest internal", () => {
    const own = new ZeroDbError("not_found", "no such session");
    expect(fromSqliteError(own)).toBe(own);
    expect(fromSqliteError(Object.assign(new Error("write"), { code: "ENOSPC" })).code).toBe("storage_full");
    expect(fromSqliteError("a string").code).toBe("internal");
  });

  test("the root mapping knows no engine: a SQLite code that escaped the store is an internal error", () => {
    expect(toZeroDbError(sqliteError("SQLITE_BUSY")).code).toBe("internal");
  });

  test("a mapped generator maps the failure of a later item and passes the items before it", () => {
    function* chunks() {
      yield 1;
      throw sqliteError("SQLITE_BUSY");
    }
    const seen: number[] = [];
    let failure: unknown;
    try {
      for (const c of mapped(chunks())) seen.push(c);
    } catch (err) {
      failure = err;
    }
    expect(seen).toEqual([1]);
    expect((failure as ZeroDbError).code).toBe("unavailable");
  });
});
