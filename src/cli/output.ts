/** Writing results and errors for people and for --json (DESIGN.md 6.3). */
import { CODES, toZeroDbError } from "../errors.ts";

/** Writes to stdout and resolves once the bytes are handed to the OS (pipes included). */
export function writeOut(text: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

/** Writes one line to stderr. */
export function writeErr(line: string): void {
  process.stderr.write(line.endsWith("\n") ? line : `${line}\n`);
}

/**
 * Reports a failure: one line on stderr (and the error document on stdout
 * with --json); returns the exit code. Unknown errors are logged without a
 * stack trace unless ZERODB_DEBUG is set.
 */
export async function reportError(err: unknown, json: boolean): Promise<number> {
  const e = toZeroDbError(err);
  const usage = e.name === "UsageError";
  if (json) await writeOut(`${JSON.stringify(e.toJSON())}\n`);
  writeErr(`zerodb: ${e.code === "internal" ? "internal error" : e.message}`);
  if (process.env.ZERODB_DEBUG && e.cause) writeErr(String((e.cause as Error)?.stack ?? e.cause));
  return usage ? 2 : CODES[e.code].exit;
}
