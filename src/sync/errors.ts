/** Sync's view of errors: the code of a ZeroDbError, whichever store threw it. */
import { ZeroDbError } from "../errors.ts";

/** The ZeroDbError code of an error, or undefined for anything else. */
export function errorCode(err: unknown): string | undefined {
  return err instanceof ZeroDbError ? err.code : undefined;
}
