/**
 * Atomic file writes, the one way zerodb puts a file in place: the bytes go
 * to a temp file created exclusively on the same file system, are fsynced,
 * and only then is the temp renamed over the destination or linked to it.
 * A reader (or a crash) finds the old file, the new one or none, never a
 * partial one; the directory is fsynced so the new entry survives a power cut.
 */
import { closeSync, constants, copyFileSync, fchmodSync, fstatSync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
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

/** A chunk to write: bytes, or a string written as UTF-8. */
export type Chunk = Uint8Array | string;

/**
 * How a temp file takes its destination's place: `replace` renames over
 * whatever is there; `new` links, which fails with EEXIST when anything (a
 * file made meanwhile, a planted symlink) is there, so nothing is overwritten.
 */
export type Publish = "replace" | "new";

/** Options of a temp file. */
export interface TempOptions {
  /** The file's exact mode, set with fchmod so the umask does not change it; without it, 0o600 under the umask. */
  mode?: number;
  /** Fill the temp file with a copy of this file (the kernel copies: copy_file_range) instead of written chunks. */
  copyFrom?: string;
}

/** A temp file being written; nothing is at a destination until `publish`. */
export interface TempFile {
  /** Where the temp file is now. */
  readonly path: string;
  /** Bytes written so far (after `seal`, the file's size). */
  readonly size: number;
  /** Appends a chunk. */
  write(chunk: Chunk): void;
  /** fsyncs and closes the file; done by `publish` when not done before. */
  seal(): void;
  /** Renames the sealed temp file to another temp name (no directory fsync: it is still a temp). */
  rename(to: string): void;
  /** Seals, then puts the file at `dest` as `how` says and fsyncs its directory; after `new` the temp name stays until `discard`. */
  publish(dest: string, how: Publish): void;
  /** Closes and removes the temp file if it is still there (always call it, published or not). */
  discard(): void;
}

function errCode(err: unknown): string | undefined {
  return (err as { code?: string }).code;
}

/**
 * Creates the temp file `path` exclusively (O_EXCL: never an existing file,
 * nor through a symlink planted there). A failure here leaves nothing behind.
 */
export function createTemp(path: string, opts: TempOptions = {}): TempFile {
  let fd: number | undefined;
  let current = path;
  let size = 0;
  // "gone": the temp name no longer holds our file (renamed into place), or never did (EEXIST).
  let gone = false;
  const discard = () => {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {}
      fd = undefined;
    }
    if (gone) return;
    gone = true;
    try {
      unlinkSync(current);
    } catch {}
  };
  try {
    if (opts.copyFrom !== undefined) {
      copyFileSync(opts.copyFrom, path, constants.COPYFILE_EXCL);
      fd = openSync(path, "r+");
    } else fd = openSync(path, "wx", 0o600);
    if (opts.mode !== undefined) fchmodSync(fd, opts.mode);
  } catch (err) {
    // EEXIST: the name holds another writer's temp file, not ours to remove.
    if (errCode(err) === "EEXIST") gone = true;
    discard();
    throw err;
  }
  const open = (): number => {
    if (fd === undefined) throw new Error(`${current} is already sealed`);
    return fd;
  };
  const file: TempFile = {
    get path() {
      return current;
    },
    get size() {
      return size;
    },
    write(chunk) {
      const to = open();
      const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      // writeSync may write less than asked: loop until every byte is down.
      for (let off = 0; off < buf.byteLength; ) off += writeSync(to, buf, off, buf.byteLength - off);
      size += buf.byteLength;
    },
    seal() {
      if (fd === undefined) return;
      fsyncSync(fd);
      size = fstatSync(fd).size;
      closeSync(fd);
      fd = undefined;
    },
    rename(to) {
      file.seal();
      renameSync(current, to);
      current = to;
    },
    publish(dest, how) {
      file.seal();
      if (how === "new") linkSync(current, dest);
      else {
        renameSync(current, dest);
        gone = true;
      }
      fsyncDir(dirname(dest));
    },
    discard,
  };
  return file;
}

/** Options of writeAtomic. */
export interface WriteAtomicOptions extends TempOptions {
  /** `new` never overwrites (EEXIST when `path` exists); `replace` does, atomically. */
  publish: Publish;
}

/**
 * Streams `chunks` into a temp file beside `path`, fsyncs it and publishes
 * it at `path`; on any failure the temp file is removed and `path` is
 * untouched. Returns the bytes written.
 */
export async function writeAtomic(path: string, chunks: AsyncIterable<Chunk> | Iterable<Chunk>, opts: WriteAtomicOptions): Promise<number> {
  const file = createTemp(tempPathFor(path), opts);
  try {
    for await (const chunk of chunks) file.write(chunk);
    file.publish(path, opts.publish);
    return file.size;
  } finally {
    file.discard();
  }
}

/**
 * writeAtomic of one buffer, synchronously, for callers that cannot wait.
 * `exclusive` refuses to replace an existing file (EEXIST).
 */
export function writeFileAtomic(path: string, data: Chunk, opts: { mode?: number; exclusive?: boolean } = {}): void {
  const file = createTemp(tempPathFor(path), { mode: opts.mode });
  try {
    file.write(data);
    file.publish(path, opts.exclusive ? "new" : "replace");
  } finally {
    file.discard();
  }
}
