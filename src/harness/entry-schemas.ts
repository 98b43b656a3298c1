/**
 * The shapes zerodb reads back from harness configs, said once as zod
 * schemas. Reading is tolerant, as HARNESSES.md asks: a wrong-typed array
 * item or env value is dropped rather than failing the whole file.
 */
import { z } from "zod";

/** The strings of an array; anything else (or no array) reads as none. */
export const StringList = z
  .array(z.unknown())
  .transform((xs) => xs.filter((x): x is string => typeof x === "string"))
  .catch([]);

/** The string values of an object; anything else (or no object) reads as none. */
export const StringMap = z
  .record(z.string(), z.unknown())
  .transform((o) => Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === "string")))
  .catch({});

/** A stdio server entry `{command, args, env}`, as Codex and most JSON harnesses write it. */
export const CommandEntry = z.looseObject({ command: z.string(), args: StringList, env: StringMap });

/** opencode's local server entry: `command` is the whole argv, the environment is `environment`. */
export const OpencodeEntry = z.looseObject({ command: StringList.pipe(z.array(z.string()).min(1)), environment: StringMap });

/** A JSON object (not an array, not null). */
const JsonObject = z.record(z.string(), z.unknown());

/** A settings file whose `key`, when present, holds an object: the top level of Claude Code's settings.json and every server-map file. */
export function objectWith(key: string) {
  return z.looseObject({ [key]: JsonObject.optional() });
}
