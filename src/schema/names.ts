/**
 * The rules of names and roles as plain functions, with no schema built: a
 * capture hook checks its batch by hand with these (capture-batch.ts) and
 * never builds a zod schema (issue 32: building common.ts's schemas at load
 * was a tenth of a hook run's own work). common.ts builds its schemas from
 * these and re-exports them, so there is one rule for each.
 */
import { NAME_MAX_BYTES } from "../limits.ts";

/** UTF-8 byte length of a string. */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** The roles a turn may have. */
export const ROLES = ["user", "assistant", "tool", "system", "note"] as const;

// C0 controls, DEL and C1 controls are never part of a name.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `name` is not a valid session name or fact key, or undefined when it is. */
export function nameProblem(name: string): string | undefined {
  if (!name.isWellFormed()) return "must be valid UTF-8";
  const bytes = utf8Bytes(name);
  if (bytes < 1) return "must not be empty";
  if (bytes > NAME_MAX_BYTES) return `is ${bytes} bytes, over the limit of ${NAME_MAX_BYTES}`;
  if (CONTROL.test(name)) return "must not contain control characters";
  if (name.startsWith("/") || name.endsWith("/")) return "must not start or end with '/'";
  for (const seg of name.split("/")) {
    if (seg === "") return "must not contain an empty segment ('//')";
    if (seg === "." || seg === "..") return `must not contain a '${seg}' segment`;
  }
  return undefined;
}

/**
 * A fact_get input that FactGetInput accepts as it is (`{key}` alone, a good
 * name), told without building the operations' schemas: a capture hook reads
 * its sources' identity facts (src/capture/cursor-identity.ts) and needs no
 * other operation. Anything else goes to the schema, which names the field.
 */
export function isPlainFactGet(input: unknown): input is { key: string } {
  if (typeof input !== "object" || input === null || Object.getPrototypeOf(input) !== Object.prototype) return false;
  const keys = Object.keys(input);
  const key = (input as { key?: unknown }).key;
  return keys.length === 1 && keys[0] === "key" && typeof key === "string" && nameProblem(key) === undefined;
}
