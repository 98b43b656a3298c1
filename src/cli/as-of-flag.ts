/** The `--as-of` flag of the reads (DESIGN.md section 17), defined once for every command that takes it. */

/** citty's definition of `--as-of`. */
export const AS_OF_ARG = {
  type: "string",
  description: "what the store held at this point: an LSN or an ISO 8601 time",
  valueHint: "lsn|time",
} as const;

/** The flag's value as the operation's `as_of` (digits stay text: the schema reads them as an LSN). */
export function asOfFlag(args: { "as-of"?: unknown }): string | undefined {
  return args["as-of"] === undefined ? undefined : String(args["as-of"]);
}
