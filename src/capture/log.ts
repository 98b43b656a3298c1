/**
 * capture.log (DESIGN.md 7.2): a hook never fails the harness; what went
 * wrong goes here instead, one line per run, in `<home>/logs/`. Lines carry
 * codes, positions and paths, never transcript content (it may hold secrets).
 */
import { appendFileSync, chmodSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { homePaths } from "../config.ts";
import { guardPrivatePaths } from "../util/private-path.ts";
import { LOG_MAX_BYTES } from "./limits.ts";

/** The log file of a home. */
export function captureLogPath(home: string): string {
  return join(home, "logs", "capture.log");
}

/**
 * Appends one line (newlines inside it are flattened). One write of an
 * O_APPEND file: lines of hooks running at once never interleave. Past
 * LOG_MAX_BYTES the file moves to capture.log.1 first. Never throws: a log
 * that cannot be written must not turn into a hook failure; false says the
 * line was not written.
 */
export function logLine(home: string, line: string, now = new Date()): boolean {
  try {
    const path = captureLogPath(home);
    // Not into a home, logs dir or log another user owns or can write (issue 14, item 3): the caller reports elsewhere.
    guardPrivatePaths([
      ...homePaths(home).filter((p) => p.path === home || p.path === dirname(path)),
      { path, kind: "file", label: "capture log", setting: "ZERODB_HOME or --home" },
    ]);
    mkdirSync(join(home, "logs"), { recursive: true, mode: 0o700 });
    let fresh = false;
    try {
      if (statSync(path).size > LOG_MAX_BYTES) {
        renameSync(path, `${path}.1`);
        fresh = true;
      }
    } catch {
      fresh = true;
    }
    appendFileSync(path, `${now.toISOString()} ${line.replace(/[\r\n]+/g, " ")}\n`, { mode: 0o600 });
    // The mode given at creation passes through the umask, which is not trusted.
    if (fresh) chmodSync(path, 0o600);
    return true;
  } catch {
    // The hook still exits 0; it reports the line elsewhere.
    return false;
  }
}

/**
 * A hook run's problems as its one capture.log line (`<who>: a; b`); when the
 * log cannot take it, `warn` gets it (stderr: never stdout, which is the
 * harness's). `home` may throw (no home could be resolved): "." is used then.
 * Nothing to say, nothing written. Never throws.
 */
export function logProblems(opts: { home: () => string; who: string; problems: readonly string[]; warn?: (line: string) => void }): void {
  if (opts.problems.length === 0) return;
  const line = `${opts.who}: ${opts.problems.join("; ")}`;
  let home: string;
  try {
    home = opts.home();
  } catch {
    home = ".";
  }
  if (!logLine(home, line)) opts.warn?.(`zerodb hook: ${line}`);
}
