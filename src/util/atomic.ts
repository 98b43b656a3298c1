/** Atomic file writes: temp file in the same directory, fsync, rename. */
import { closeSync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** A temp path beside `path`, so the rename stays on one file system. */
export function tempPathFor(path: string): string {
  const rand = Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex");
  return join(dirname(path), `.${basename(path)}.${process.pid}.${rand}.tmp`);
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
