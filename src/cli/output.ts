/** Writing results and errors for people and for --json (DESIGN.md 6.3). */
import { CODES, toZeroDbError } from "../errors.ts";
import { BROKEN_PIPE_EXIT, stdoutClosed, writeOut } from "./stdout.ts";

/**
 * Reports a failure: one line on stderr (and the error document on stdout
 * with --json); returns the exit code. --verbose (or ZERODB_DEBUG) adds the
 * code and the cause's stack on debug lines.
 */
export async function reportError(err: unknown, json: boolean): Promise<number> {
  // Whoever read stdout stopped (`zerodb export | head`): nothing more to say, the exit status a C tool's SIGPIPE gives.
  if (stdoutClosed(err)) return BROKEN_PIPE_EXIT;
  const e = toZeroDbError(err);
  const usage = e.name === "UsageError";
  if (json) await writeOut(`${JSON.stringify(e.toJSON())}\n`);
  // Loaded here, not at the top: a command that succeeds without logging (version) never loads consola.
  const { ui } = await import("./log.ts");
  ui.error(`zerodb: ${e.code === "internal" ? "internal error" : e.message}`);
  ui.debug(`zerodb: error code ${e.code}${e.field ? `, field ${e.field}` : ""}`);
  if (e.cause) ui.debug(String((e.cause as Error)?.stack ?? e.cause));
  return usage ? 2 : CODES[e.code].exit;
}
