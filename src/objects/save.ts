/**
 * Writing an object's bytes to a new file that must not exist yet (CLI
 * `object get --out`, MCP object_get {path}): DESIGN.md 6.3 and section 8 say
 * an existing file is never overwritten.
 */
import { closeSync, constants, copyFileSync, existsSync, fstatSync, fsyncSync, linkSync, openSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ZeroDbError, invalid, notFound } from "../errors.ts";
import { fileNameProblem, fsyncDir, tempPathFor } from "../util/atomic.ts";

/** The conflict error for a destination that exists. */
export function existsError(path: string, field: string): ZeroDbError {
  return new ZeroDbError("conflict", `${path} exists; zerodb never overwrites a file`, { field });
}

/** Where the bytes come from: a local file (copied by the kernel) or a stream. */
export interface SaveSource {
  /** The blob's file when the store is local. */
  path?: string;
  read(): ReadableStream<Uint8Array>;
}

/**
 * Writes the bytes into a temp file beside `path`, fsyncs it, then links it
 * to `path`. link() fails when `path` exists, so a file created meanwhile (or
 * a planted symlink) is refused, never replaced. Returns the bytes written.
 */
export async function saveNew(path: string, source: SaveSource, opts: { field: string; onBytes?: (n: number) => void }): Promise<number> {
  // A name no file system takes is the caller's field to fix, not an internal error (I6).
  const problem = fileNameProblem(path);
  if (problem) throw invalid(opts.field, problem);
  const tmp = tempPathFor(path);
  let fd: number | undefined;
  try {
    if (source.path !== undefined) {
      // copy_file_range under the hood: several times faster than a read/write loop, same result.
      copyLocal(source.path, tmp);
      fd = openSync(tmp, "r");
    } else {
      fd = openSync(tmp, "wx", 0o600);
      let written = 0;
      for await (const chunk of source.read()) {
        let off = 0;
        while (off < chunk.byteLength) off += writeSync(fd, chunk, off, chunk.byteLength - off);
        written += chunk.byteLength;
        opts.onBytes?.(written);
      }
    }
    fsyncSync(fd);
    const size = fstatSync(fd).size;
    closeSync(fd);
    fd = undefined;
    try {
      linkSync(tmp, path);
    } catch (err) {
      if ((err as { code?: string }).code === "EEXIST") throw existsError(path, opts.field);
      throw err;
    }
    fsyncDir(dirname(path));
    return size;
  } finally {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {}
  }
}

function copyLocal(from: string, to: string): void {
  try {
    copyFileSync(from, to, constants.COPYFILE_EXCL);
  } catch (err) {
    // The blob went between the lookup and the copy: a forget ran meanwhile.
    if ((err as { code?: string }).code === "ENOENT" && !existsSync(from)) throw notFound("the object was forgotten while it was being read", "object");
    throw err;
  }
}
