/** PostgreSQL failures as zerodb errors (STYLE.md habit 2), with no SQL, host or password in the message (I10). */
import { ZeroDbError, toZeroDbError } from "../../errors.ts";

/**
 * Whether a failure lost the connection (closed, refused, terminated by the
 * server: 57P01-57P03 https://www.postgresql.org/docs/current/errcodes-appendix.html).
 * A read that failed so can run again on a fresh connection.
 */
export function connectionLost(err: unknown): boolean {
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  const sqlState = String((err as { errno?: unknown } | null)?.errno ?? "");
  return code.startsWith("ERR_POSTGRES_CONNECTION") || code === "ECONNREFUSED" || code === "ECONNRESET" || /^57P0[123]$/.test(sqlState);
}

/**
 * Maps anything the SQL client throws; the original stays as `cause` for the
 * log. `where` (the redacted URL) is named only when the operator opens the
 * store: an operation's error reaches HTTP clients, who learn no host (I10).
 */
export function fromPgError(err: unknown, where?: string): ZeroDbError {
  const at = where === undefined ? "the database" : `the database at ${where}`;
  if (err instanceof ZeroDbError) return err;
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  const sqlState = String((err as { errno?: unknown } | null)?.errno ?? "");
  if (code.startsWith("ERR_POSTGRES_CONNECTION") || code === "ECONNREFUSED" || code.includes("CONNECTION")) {
    return new ZeroDbError("unavailable", `${at} is not reachable: retry`, { cause: err });
  }
  if (code.includes("AUTH") || sqlState === "28P01" || sqlState === "28000") {
    return new ZeroDbError("unavailable", `${at} refused the credentials`, { cause: err });
  }
  if (/^57P0[123]$/.test(sqlState)) {
    return new ZeroDbError("unavailable", "the database closed the connection (restarted or shut down): retry, with the same idempotency keys for writes", {
      cause: err,
    });
  }
  // Serialization failures and deadlocks: nothing was written, a retry is safe.
  if (sqlState === "40001" || sqlState === "40P01") {
    return new ZeroDbError("unavailable", "the database is busy: retry", { cause: err });
  }
  if (sqlState === "53100") return new ZeroDbError("storage_full", "the database's disk is full", { cause: err });
  return toZeroDbError(err);
}
