/**
 * Writing an object's bytes to a new file that must not exist yet (CLI
 * `object get --out`, MCP object_get {path}): DESIGN.md 6.3 and section 8 say
 * an existing file is never overwritten.
 */
import { existsSync } from "node:fs";
import { ZeroDbError, invalid, notFound } from "../errors.ts";
import { fileNameProblem, writeAtomic } from "../util/atomic.ts";

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
  try {
    // A local blob is copied by the kernel (copy_file_range): several times faster than a read/write loop, same result.
    if (source.path !== undefined) return await writeAtomic(path, [], { publish: "new", copyFrom: source.path });
    return await writeAtomic(path, counted(source.read(), opts.onBytes), { publish: "new" });
  } catch (err) {
    if ((err as { code?: string }).code === "EEXIST") throw existsError(path, opts.field);
    // The blob went between the lookup and the copy: a forget ran meanwhile.
    if ((err as { code?: string }).code === "ENOENT" && source.path !== undefined && !existsSync(source.path)) {
      throw notFound("the object was forgotten while it was being read", "object");
    }
    throw err;
  }
}

/** The chunks of `stream`, reporting the bytes written so far after each. */
async function* counted(stream: ReadableStream<Uint8Array>, onBytes?: (n: number) => void): AsyncGenerator<Uint8Array> {
  let written = 0;
  for await (const chunk of stream) {
    yield chunk;
    written += chunk.byteLength;
    onBytes?.(written);
  }
}
