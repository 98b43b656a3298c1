/**
 * Writing one spill file safely (DESIGN.md section 9): a private directory
 * per owner, files created exclusively and chmodded before their bytes are
 * written, and no partial file left behind by a failure.
 */
import * as nodeFs from "node:fs";
import { join } from "node:path";
import { type PrivatePath, guardPrivatePaths } from "../util/private-path.ts";

/** The spill root as a kept path; its parent is checked too, since it may lie outside the home (config spill_root). */
export function spillRootPath(root: string): PrivatePath {
  return { path: root, kind: "dir", label: "spill root", setting: "config spill_root", parent: true };
}

/** The file system calls a spill makes; tests replace some to make them fail. */
export interface SpillFs {
  openSync(path: string, flags: number, mode: number): number;
  fchmodSync(fd: number, mode: number): void;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  fsyncSync(fd: number): void;
  closeSync(fd: number): void;
  unlinkSync(path: string): void;
}

/** The real file system. */
export const realFs: SpillFs = nodeFs;

const { O_WRONLY, O_CREAT, O_EXCL } = nodeFs.constants;
// O_NOFOLLOW is absent on Windows; O_EXCL alone already refuses an existing symlink (POSIX open(2)).
const O_NOFOLLOW = nodeFs.constants.O_NOFOLLOW ?? 0;

/**
 * Creates the owner's directory `<root>/<sub>` and returns its path. Both are
 * made 0700 explicitly when created, because mkdir's mode passes through the
 * umask, which is not trusted; the owner's directory is re-tightened every
 * time. A symlink, a non-directory or another user's directory in its place
 * is refused, so a planted link cannot redirect spills elsewhere.
 */
export function ensureSpillDir(root: string, sub: string): string {
  // The root is checked each time: another user's, or one others can write to, is refused (issue 14, item 3).
  // Below a root that passes nobody else can reach the owner's directory, so that one is only tightened.
  guardPrivatePaths([spillRootPath(root)]);
  if (!nodeFs.existsSync(root)) {
    nodeFs.mkdirSync(root, { recursive: true, mode: 0o700 });
    nodeFs.chmodSync(root, 0o700);
  }
  const dir = join(root, sub);
  try {
    nodeFs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as { code?: string }).code !== "EEXIST") throw err;
  }
  const st = nodeFs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new Error(`${dir} belongs to another user`);
  nodeFs.chmodSync(dir, 0o700);
  return dir;
}

/**
 * Writes `data` to a new file at `path`, mode 0600. O_EXCL makes an existing
 * file or symlink at that name an error instead of a redirected write; the
 * mode is set on the descriptor before any byte is written; on any failure
 * after creation the file is removed, so no partial spill survives.
 */
export function writeNewPrivateFile(path: string, data: Uint8Array, fs: SpillFs = realFs): void {
  const fd = fs.openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  let open = true;
  try {
    fs.fchmodSync(fd, 0o600);
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
    // A spill the notice points at must hold every byte, even after a power cut.
    fs.fsyncSync(fd);
    open = false;
    fs.closeSync(fd);
  } catch (err) {
    if (open) {
      try {
        fs.closeSync(fd);
      } catch {}
    }
    try {
      fs.unlinkSync(path);
    } catch {}
    throw err;
  }
}
