/** Small file-system questions asked in several places. */
import { lstatSync, readdirSync } from "node:fs";

/** True when anything (a dangling symlink included) is at `path`. */
export function lexists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The names in a directory, or none when it is missing or not a directory. */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
