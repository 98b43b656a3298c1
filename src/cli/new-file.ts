/** Checks for an --out file that must be new (export, backup). */
import { lstatSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { ZeroDbError, invalid } from "../errors.ts";
import { fileNameProblem } from "../util/atomic.ts";

/** The conflict for an --out that exists. */
export function outExists(out: string, command: string): ZeroDbError {
  return new ZeroDbError("conflict", `${out} exists; ${command} never overwrites a file`, { field: "out" });
}

/**
 * Refuses an --out that exists (a dangling symlink included: link() would
 * refuse it later anyway) or whose directory does not, before the store is
 * opened, so the refusal is clear and touches nothing (I6).
 */
export function checkNewFile(out: string, command: string): void {
  let exists = true;
  try {
    lstatSync(out);
  } catch {
    exists = false;
  }
  if (exists) throw outExists(out, command);
  const problem = fileNameProblem(out);
  if (problem) throw invalid("out", problem);
  let dir;
  try {
    dir = statSync(dirname(out));
  } catch {
    dir = undefined;
  }
  if (!dir?.isDirectory()) throw new ZeroDbError("invalid_input", `out: the directory ${dirname(out)} does not exist`, { field: "out" });
}
