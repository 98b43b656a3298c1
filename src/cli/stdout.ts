/**
 * Writing to stdout (DESIGN.md 6.3): every result, --json document, export
 * and hook context goes out through here, one write after another. Its own
 * module, below output.ts and log.ts, which both write through it.
 */

/** The exit status when stdout's reader went away: 128 + SIGPIPE, as a process killed by the signal reports. */
export const BROKEN_PIPE_EXIT = 141;

/** Errors of writes to stdout (only those: an EPIPE from another pipe is a failure to report). */
const stdoutErrors = new WeakSet<object>();

/** Whether a write to stdout failed because the pipe's reader closed it. */
export function stdoutClosed(err: unknown): boolean {
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
