/** Writing results and errors for people and for --json (DESIGN.md 6.3). */
import { CODES, toZeroDbError } from "../errors.ts";

/** The exit status when stdout's reader went away: 128 + SIGPIPE, as a process killed by the signal reports. */
export const BROKEN_PIPE_EXIT = 141;

/** Errors of writes to stdout (only those: an EPIPE from another pipe is a failure to report). */
const stdoutErrors = new WeakSet<object>();

/** Whether a write to stdout failed because the pipe's reader closed it. */
function brokenPipe(err: unknown): boolean {
  return typeof err === "object" && err !== null && stdoutErrors.has(err) && (err as { code?: unknown }).code === "EPIPE";
}

/** The last write to stdout queued: writes go out one after another, whole, in the order they were made. */
let queued: Promise<unknown> = Promise.resolve();

/**
 * Writes to stdout and resolves once the bytes are handed to the OS (pipes
 * included): --json, help, results, streamed exports, hook context. Bun's
 * own writer, not `process.stdout`: the first use of that stream loads
 * Node's stream modules, which cost a command run in the interpreter 5-8 ms
 * (a SessionStart hook printing its context, `zerodb version`).
 */
export function writeOut(text: string | Uint8Array): Promise<void> {
  const write = queued.then(() => Bun.write(Bun.stdout, text));
  queued = write.catch(() => undefined);
  return write.then(
    () => undefined,
    (err: unknown) => {
      if (typeof err === "object" && err !== null) stdoutErrors.add(err);
      throw err;
    },
  );
}

/**
 * Reports a failure: one line on stderr (and the error document on stdout
 * with --json); returns the exit code. --verbose (or ZERODB_DEBUG) adds the
 * code and the cause's stack on debug lines.
 */
export async function reportError(err: unknown, json: boolean): Promise<number> {
  // Whoever read stdout stopped (`zerodb export | head`): nothing more to say, the exit status a C tool's SIGPIPE gives.
  if (brokenPipe(err)) return BROKEN_PIPE_EXIT;
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
