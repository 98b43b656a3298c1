/**
 * Writing an object's bytes to a new file that must not exist yet (CLI
 * `object get --out`, MCP object_get {path}): DESIGN.md 6.3 and section 8 say
 * an existing file is never overwritten.
 */
import { closeSync, fsyncSync, linkSync, openSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ZeroDbError } from "../errors.ts";
import { fsyncDir, tempPathFor } from "../util/atomic.ts";

/** The conflict error for a destination that exists. */
export function existsError(path: string, field: string): ZeroDbError {
  return new ZeroDbError("conflict", `${path} exists; zerodb never overwrites a file`, { field });
}

/**
 * Streams bytes into a temp file beside `path`, fsyncs it, then links it to
 * `path`. link() fails when `path` exists, so a file created meanwhile (or a
 * planted symlink) is refused, never replaced. Returns the bytes written.
 */
export async function saveNew(path: string, stream: ReadableStream<Uint8Array>, opts: { field: string; onBytes?: (n: number) => void }): Promise<number> {
  const tmp = tempPathFor(path);
  const fd = openSync(tmp, "wx", 0o600);
  let written = 0;
  let open = true;
  try {
    for await (const chunk of stream) {
      let off = 0;
      while (off < chunk.byteLength) off += writeSync(fd, chunk, off, chunk.byteLength - off);
      written += chunk.byteLength;
      opts.onBytes?.(written);
    }
    fsyncSync(fd);
    closeSync(fd);
    open = false;
    try {
      linkSync(tmp, path);
    } catch (err) {
      if ((err as { code?: string }).code === "EEXIST") throw existsError(path, opts.field);
      throw err;
    }
    fsyncDir(dirname(path));
    return written;
  } finally {
    if (open) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {}
  }
}
