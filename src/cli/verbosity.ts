/**
 * How much the CLI says, decided once from argv before any command loads, in
 * consola's levels (https://github.com/unjs/consola#log-level): 0 only
 * errors (--quiet), 3 the default, 4 adds debug detail (--verbose). Kept
 * apart from log.ts so the dispatcher sets it without loading consola:
 * `zerodb version` stays light (DESIGN.md section 10).
 */

/** consola's level for errors only. */
export const QUIET = 0;
/** consola's default level: results, notes, warnings and errors. */
export const NORMAL = 3;
/** consola's level that adds debug lines. */
export const VERBOSE = 4;
/** consola's levels by name, the few the CLI uses (consola's own table lives in the module this file keeps out of start-up). */
export const LogLevels = { error: QUIET, log: 2, info: NORMAL, debug: VERBOSE } as const;

let level = NORMAL;

/** Reads --quiet/-q and --verbose/-v from argv (flags only: words after `--` are content); the later one wins. */
export function setVerbosity(argv: string[], env: NodeJS.ProcessEnv = process.env): number {
  level = env.ZERODB_DEBUG ? VERBOSE : NORMAL;
  for (const tok of argv) {
    if (tok === "--") break;
    if (tok === "--quiet" || tok === "-q") level = QUIET;
    else if (tok === "--verbose" || tok === "-v") level = VERBOSE;
  }
  return level;
}

/** The level in force. */
export function verbosity(): number {
  return level;
}
