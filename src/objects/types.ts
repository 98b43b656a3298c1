/**
 * The content-addressed blob store's narrow interface (DESIGN.md section 8).
 * It knows bytes and digests only; refs, tenants and forget live in the
 * engine that uses it.
 */

/** Bytes to store: a whole buffer, a web stream, or any async iterable of chunks. */
export type ObjectSource = Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** A byte range of an object: `start` inclusive, `end` exclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/** What a put stored: `sha256:<hex>` and the size in bytes. */
export interface BlobInfo {
  digest: string;
  size: number;
}

/**
 * Bytes streamed into a temp file, hashed and fsynced, not yet published.
 * The engine calls `place()` inside the transaction that commits the ref, so
 * a concurrent collection can never remove the file between the two (I7).
 */
export interface StagedBlob extends BlobInfo {
  /** Publishes the blob at its digest's path unless it is there already; true when this call created it. */
  place(): boolean;
  /** Removes the temp file (always call it, placed or not). */
  discard(): void;
}

/** What cleanup found: temp files of dead processes it removed, and digests they may have published. */
export interface CleanupResult {
  removed: number;
  /** Digests a dead put had hashed: their blob may be on disk with no ref committed. */
  orphans: string[];
}

/** The blob store of one data dir. */
export interface BlobStore {
  /** The directory holding `sha256/` and `tmp/`. */
  readonly root: string;
  /** Streams bytes into a temp file while hashing them; too_large past `maxBytes`. */
  stage(source: ObjectSource, opts: { maxBytes: number }): Promise<StagedBlob>;
  /** Stages and places in one step (for callers that keep no refs). */
  put(source: ObjectSource, opts: { maxBytes: number }): Promise<BlobInfo>;
  /** The size of a stored blob, or undefined when it is not on disk. */
  stat(digest: string): { size: number } | undefined;
  /** The file a blob lives in (it may not exist). */
  path(digest: string): string;
  /** Streams a blob's bytes, all of them or a range. */
  read(digest: string, range?: ByteRange): ReadableStream<Uint8Array>;
  /** Removes a blob from disk; true when it was there. */
  delete(digest: string): boolean;
  /** Removes temp files left by processes that no longer run. */
  cleanup(): CleanupResult;
}
