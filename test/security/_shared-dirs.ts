/**
 * Helpers of the shared-directory tests (issue 14, item 3): handing a path
 * to another user and pre-creating a test home's directories. The tests run
 * as root: "another user" is uid 65534 (nobody), given the path with chown.
 */
import { chmodSync, chownSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export const NOBODY = 65534;
export const isRoot = process.getuid?.() === 0;

/** Gives `path` to another user. */
export function giveAway(path: string): void {
  chownSync(path, NOBODY, NOBODY);
}

/** A test home `<box>/zerodb` with its data dir created as another user or a loose umask would have. */
export function preCreate(box: string, sub = "data"): string {
  const dir = join(box, "zerodb", sub);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(join(box, "zerodb"), 0o700);
  chmodSync(dir, 0o700);
  return dir;
}
