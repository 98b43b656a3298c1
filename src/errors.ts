/**
 * The one error type of zerodb (STYLE.md habit 2). Every door (HTTP, MCP, CLI,
 * hook) maps a ZeroDbError through CODES below; anything else is an internal
 * error, logged once and answered with a generic message (DESIGN.md I10).
 */

/** The closed set of error codes, each with its HTTP status and CLI exit code. */
export const CODES = {
  invalid_input: { status: 400, exit: 2 },
  unauthorized: { status: 401, exit: 1 },
  not_found: { status: 404, exit: 1 },
  conflict: { status: 409, exit: 1 },
  too_large: { status: 413, exit: 2 },
  unsupported_media_type: { status: 415, exit: 2 },
  range_not_satisfiable: { status: 416, exit: 1 },
  storage_full: { status: 507, exit: 1 },
  corrupt: { status: 500, exit: 1 },
  incompatible: { status: 500, exit: 1 },
  unavailable: { status: 503, exit: 1 },
  /** A path zerodb keeps belongs to another user, is writable by others, or is a symlink (issue 14, item 3). */
  unsafe_path: { status: 500, exit: 1 },
  internal: { status: 500, exit: 1 },
} as const;

/** One of the codes of CODES. */
export type ErrorCode = keyof typeof CODES;

/** An error whose message is safe to show a model or a stranger. */
export class ZeroDbError extends Error {
  readonly code: ErrorCode;
  readonly field?: string;

  constructor(code: ErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ZeroDbError";
    this.code = code;
    if (options.field !== undefined) this.field = options.field;
  }

  /** The JSON body every door answers with: `{error: {code, message, field?}}`. */
  toJSON(): { error: { code: ErrorCode; message: string; field?: string } } {
    return {
      error: { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) },
    };
  }
}

/** True when `value` is a ZeroDbError. */
export function isZeroDbError(value: unknown): value is ZeroDbError {
  return value instanceof ZeroDbError;
}

/** Builds an invalid_input error naming a field. */
export function invalid(field: string, message: string): ZeroDbError {
  return new ZeroDbError("invalid_input", `${field}: ${message}`, { field });
}

/** Builds a too_large error naming a field. */
export function tooLarge(field: string, message: string): ZeroDbError {
  return new ZeroDbError("too_large", `${field}: ${message}`, { field });
}

/** Builds a not_found error. */
export function notFound(message: string, field?: string): ZeroDbError {
  return new ZeroDbError("not_found", message, field ? { field } : {});
}

/**
 * Turns anything thrown into a ZeroDbError. Unknown errors become `internal`
 * with a generic message; the original is kept as `cause` for the log only.
 * Each engine maps its own codes first, at the store's boundary
 * (src/store/sqlite/errors.ts, src/store/postgres/errors.ts).
 */
export function toZeroDbError(err: unknown): ZeroDbError {
  if (err instanceof ZeroDbError) return err;
  const errno = (err as { code?: unknown } | null)?.code;
  if (errno === "ENOSPC" || errno === "EDQUOT" || errno === "EFBIG") {
    return new ZeroDbError("storage_full", "the disk is full: free some space and retry", { cause: err });
  }
  return new ZeroDbError("internal", "internal error", { cause: err });
}
