/**
 * The blob store on the local file system (DESIGN.md section 8, I7): a put
 * streams into a temp file beside the shard tree while hashing with Bun's
 * native SHA-256, fsyncs it, and only then links it into place; readers only
 * ever find complete, fsynced files at a digest's path.
 */
import { mkdirSync, statSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { tooLarge } from "../errors.ts";
import { type TempFile, createTemp, fsyncDir } from "../util/atomic.ts";
import { blobPath, digestHex, parseTempName, shardChain, tempName, tmpDir } from "./_paths.ts";
import type { BlobStore, ByteRange, CleanupResult, ObjectSource, StagedBlob } from "./types.ts";
import { listDir } from "../util/fs.ts";

/** Opens the blob store rooted at `root` (`<data dir>/objects`); nothing is created until a put. */
export function createFsBlobStore(root: string): BlobStore {
  const store: BlobStore = {
    root,
    stage: (source, opts) => stage(root, source, opts.maxBytes),
    async put(source, opts) {
      const staged = await stage(root, source, opts.maxBytes);
      try {
        staged.place();
        return { digest: staged.digest, size: staged.size };
      } finally {
        staged.discard();
      }
    },
    stat(digest) {
      try {
        const st = statSync(blobPath(root, digestHex(digest)));
        return st.isFile() ? { size: st.size } : undefined;
      } catch {
        return undefined;
      }
    },
    path: (digest) => blobPath(root, digestHex(digest)),
    read(digest, range?: ByteRange) {
      const file = Bun.file(blobPath(root, digestHex(digest)));
      return (range ? file.slice(range.start, range.end) : file).stream();
    },
    delete(digest) {
      const path = blobPath(root, digestHex(digest));
      try {
        unlinkSync(path);
      } catch (err) {
        if ((err as { code?: string }).code === "ENOENT") return false;
        throw err;
      }
      fsyncDir(dirname(path));
      return true;
    },
    cleanup: () => cleanup(root),
  };
  return store;
}

/** Chunks of any source, in order. */
async function* chunks(source: ObjectSource): AsyncGenerator<Uint8Array> {
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  yield* source as AsyncIterable<Uint8Array>;
}

function randomHex(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex");
}

/** Streams `source` into a temp file, hashing as it goes; nothing is buffered whole. */
async function stage(root: string, source: ObjectSource, maxBytes: number): Promise<StagedBlob> {
  const dir = tmpDir(root);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const rand = randomHex();
  const file = createTemp(join(dir, tempName(process.pid, rand)));
  const hasher = new Bun.CryptoHasher("sha256");
  try {
    for await (const chunk of chunks(source)) {
      // Checked per chunk while streaming, so an oversized body never lands whole (DESIGN.md section 3).
      if (file.size + chunk.byteLength > maxBytes) throw tooLarge("object", `is over the limit of ${maxBytes} bytes (config max_object_bytes)`);
      hasher.update(chunk);
      file.write(chunk);
    }
    const hex = hasher.digest("hex");
    // The hex in the name lets cleanup find a blob a crashed put may have placed without a ref.
    file.rename(join(dir, tempName(process.pid, rand, hex)));
    return { digest: `sha256:${hex}`, size: file.size, place: () => place(root, file, hex), discard: () => file.discard() };
  } catch (err) {
    file.discard();
    throw err;
  }
}

/**
 * Links the temp file to the blob's path. link() refuses an existing target,
 * so a blob is never overwritten; then the new directory entries are fsynced
 * (the file's own bytes were fsynced before), each new shard directory and its
 * parent included (I7). The temp name stays until discard, so cleanup can
 * still name the blob if the process dies before its ref commits.
 */
function place(root: string, file: TempFile, hex: string): boolean {
  const created = makeChain(shardChain(root, hex));
  const final = blobPath(root, hex);
  try {
    file.publish(final, "new");
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "EEXIST") return false;
    // File systems without hard links: the caller holds the store's write lock, so check-then-rename cannot race another put.
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw err;
    if (statOrUndefined(final)) return false;
    file.publish(final, "replace");
  }
  // publish fsynced the blob's own directory.
  const toSync = new Set<string>();
  for (const d of created) {
    toSync.add(d);
    toSync.add(dirname(d));
  }
  toSync.delete(dirname(final));
  for (const d of toSync) fsyncDir(d);
  return true;
}

/** Creates the missing directories of a chain (outermost first); returns the ones it created. */
function makeChain(chain: string[]): string[] {
  const created: string[] = [];
  for (const d of chain) {
    try {
      mkdirSync(d, { mode: 0o700 });
      created.push(d);
    } catch (err) {
      if ((err as { code?: string }).code !== "EEXIST") throw err;
    }
  }
  return created;
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}

/** True while a process with this pid runs (EPERM: it runs, as someone else). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

/**
 * Removes temp files whose writer is gone (kill -9, power cut). A temp of a
 * running process is an upload in progress and stays. A reused pid only
 * delays a removal to a later open.
 */
function cleanup(root: string): CleanupResult {
  const dir = tmpDir(root);
  const out: CleanupResult = { removed: 0, orphans: [] };
  for (const name of listDir(dir)) {
    const parsed = parseTempName(name);
    if (!parsed || alive(parsed.pid)) continue;
    removeQuietly(join(dir, name));
    out.removed++;
    if (parsed.hex) out.orphans.push(`sha256:${parsed.hex}`);
  }
  return out;
}
