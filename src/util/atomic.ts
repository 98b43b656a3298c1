/** Atomic file writes: temp file in the same directory, fsync, rename. */
import { closeSync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Bytes of the target's name a temp name keeps: with the rest it stays under NAME_MAX (255). */
const TEMP_NAME_KEEP_BYTES = 100;

/**
 * A temp path beside `path`, so the rename stays on one file system. The
 * target's name is cut (on a UTF-8 boundary), so a long name that is valid
 * for the target does not make the temp name too long (ENAMETOOLONG).
 */
export function tempPathFor(path: string): string {
  const rand = Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex");
  let name = "";
  for (const ch of basename(path)) {
    if (Buffer.byteLength(name + ch, "utf8") > TEMP_NAME_KEEP_BYTES) break;
    name += ch;
  }
  return join(dirname(path), `.${name}.${process.pid}.${rand}.tmp`);
}

/** Why a new file's name cannot be created on common file systems (255-byte names), or undefined. */
export function fileNameProblem(path: string): string | undefined {
  const bytes = Buffer.byteLength(basename(path), "utf8");
  return bytes > 255 ? `the file name is ${bytes} bytes, over the 255 a file system allows` : undefined;
}

/** fsyncs a directory so a rename or create in it survives a power cut. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot open a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes `data` to `path` atomically: readers see the old file or the new one,
 * never a partial one. `exclusive` refuses to replace an existing file.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, opts: { mode?: number; exclusive?: boolean } = {}): void {
  const tmp = tempPathFor(path);
  const fd = openSync(tmp, "wx", opts.mode ?? 0o600);
  try {
    const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  try {
    // link() fails when the target exists: an exclusive, atomic publish.
    if (opts.exclusive) {
      linkSync(tmp, path);
      unlinkSync(tmp);
    } else renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {}
    throw err;
  }
  fsyncDir(dirname(path));
}
