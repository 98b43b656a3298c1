import type { z } from "zod";
import { ZeroDbError } from "../errors.ts";

/**
 * Validates `input` with `schema`; on failure throws one ZeroDbError naming the
 * first offending field (DESIGN.md I6). Byte-size limits are `too_large`,
 * everything else `invalid_input`.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  // reportInput: zod 4 leaves issue.input out otherwise, and "required" is told from a wrong type by it.
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  let path = issue.path.map(String);
  if (issue.code === "unrecognized_keys" && issue.keys.length > 0) path = [...path, issue.keys[0]!];
  if (prefix) path = [prefix, ...path];
  const field = path.length > 0 ? path.join(".") : "input";
  const tooLarge =
    (issue.code === "custom" && (issue.params as { tooLarge?: boolean } | undefined)?.tooLarge === true) ||
    (issue.code === "too_big" && (issue.origin === "array" || issue.origin === "string"));
  const message =
    issue.code === "unrecognized_keys"
      ? `${field}: unknown field`
      : issue.code === "invalid_type" && issue.input === undefined
        ? `${field}: required`
        : `${field}: ${issue.message}`;
  throw new ZeroDbError(tooLarge ? "too_large" : "invalid_input", message, { field });
}
