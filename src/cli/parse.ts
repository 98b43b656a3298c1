/** Turning flag strings into typed values, with errors naming the flag. */
import { ZeroDbError, invalid } from "../errors.ts";
import { wholeNumber } from "../util/whole-number.ts";

/** A usage error: exit code 2, one line. */
export class UsageError extends ZeroDbError {
  constructor(message: string, field?: string) {
    super("invalid_input", message, field ? { field } : {});
    this.name = "UsageError";
  }
}

/** A non-negative integer flag, or undefined when absent. */
export function intFlag(field: string, value: unknown): number | undefined {
  return value === undefined ? undefined : wholeNumber(field, value);
}

/** The --database flag: a postgres:// URL, checked before anything connects (its text never echoed: it may hold a password). */
export function databaseFlag(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const url = String(value);
  if (!/^postgres(ql)?:\/\/./.test(url)) throw new UsageError("database: must be a postgres:// URL", "database");
  return url;
}

/** A JSON object flag (such as --meta). */
export function jsonObjectFlag(field: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(value));
  } catch {
    throw invalid(field, "must be a JSON object, such as '{\"k\": 1}'");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalid(field, "must be a JSON object");
  return parsed as Record<string, unknown>;
}

/** A string flag that must not be empty when given. */
export function stringFlag(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return String(value);
}

/** Decodes bytes as UTF-8, refusing invalid sequences. */
export function decodeUtf8(field: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw invalid(field, "is not valid UTF-8");
  }
}
