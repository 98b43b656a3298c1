/**
 * Object bytes in PostgreSQL (DESIGN.md 8, 12): a blob is a run of chunks of
 * CHUNK_BYTES in `blob_chunks`, under an id from `blob_ids`, published at its
 * digest in `objects` by the transaction that commits a ref (objects.ts). An
 * upload commits each chunk as it arrives, so no transaction stays open for
 * the length of an upload (a long one would keep VACUUM from removing what a
 * forget deleted meanwhile) and no process holds more than one chunk. Reads
 * fetch one chunk at a time, only the chunks a range covers.
 */
import { ZeroDbError, notFound, tooLarge } from "../../errors.ts";
import type { ByteRange, ObjectSource } from "../../objects/types.ts";
import type { Q } from "./_tape.ts";

/** Bytes per chunk: big enough that a row's overhead is nothing, small enough to hold one in memory per upload or read. */
export const CHUNK_BYTES = 1 << 20;

/** An upload with no chunk for this long belongs to a process that died (or a client that stalled): it is removed. */
export const UPLOAD_IDLE_MS = 60 * 60 * 1000;

/** Chunks uploaded under a blob id, not yet published at a digest. */
export interface StagedChunks {
  blob: number;
  digest: string;
  size: number;
  chunk: number;
}

/** Where a published blob's bytes are. */
export interface BlobRef {
  blob: number;
  size: number;
  chunk: number;
}

/** Chunks of any source, in order. */
async function* pieces(source: ObjectSource): AsyncGenerator<Uint8Array> {
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  yield* source as AsyncIterable<Uint8Array>;
}

/**
 * Streams `source` into chunks under a new blob id while hashing it; too_large
 * past `maxBytes` (checked as bytes arrive). On any failure the chunks written
 * so far are deleted (best effort: an upload left behind is removed once idle).
 */
export async function uploadChunks(sql: Q, source: ObjectSource, maxBytes: number): Promise<StagedChunks> {
  const [{ id }] = await sql`SELECT nextval('blob_ids') AS id`;
  const blob = Number(id);
  await sql`INSERT INTO blob_uploads (blob, touched) VALUES (${blob}, ${Date.now()})`;
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  let seq = 0;
  let buf = new Uint8Array(CHUNK_BYTES);
  let fill = 0;
  const flush = async () => {
    // The upload's row is touched in the same statement: a chunk of an upload that was removed as idle is refused.
    const rows = await sql`WITH t AS (UPDATE blob_uploads SET touched = ${Date.now()} WHERE blob = ${blob} RETURNING blob)
      INSERT INTO blob_chunks (blob, seq, bytes) SELECT blob, ${seq}, ${buf.subarray(0, fill)} FROM t RETURNING seq`;
    if (rows.length === 0) throw idleUpload();
    seq++;
    fill = 0;
    buf = new Uint8Array(CHUNK_BYTES);
  };
  try {
    for await (const piece of pieces(source)) {
      if (size + piece.byteLength > maxBytes) throw tooLarge("object", `is over the limit of ${maxBytes} bytes (config max_object_bytes)`);
      hasher.update(piece);
      size += piece.byteLength;
      for (let at = 0; at < piece.byteLength; ) {
        const n = Math.min(CHUNK_BYTES - fill, piece.byteLength - at);
        buf.set(piece.subarray(at, at + n), fill);
        fill += n;
        at += n;
        if (fill === CHUNK_BYTES) await flush();
      }
    }
    if (fill > 0) await flush();
  } catch (err) {
    await discardUpload(sql, blob).catch(() => {});
    throw err;
  }
  return { blob, digest: `sha256:${hasher.digest("hex")}`, size, chunk: CHUNK_BYTES };
}

function idleUpload(): ZeroDbError {
  return new ZeroDbError("unavailable", "the upload was idle too long and was removed: put the object again");
}

/**
 * Publishes staged chunks at their digest inside the caller's transaction,
 * which holds the LSN lock (the lock forget takes to delete blobs, so none is
 * deleted in between, I7). A digest some other put published first keeps its
 * blob and these chunks are deleted: two processes putting the same bytes
 * store them once. Throws `unavailable` when the upload was removed as idle.
 */
export async function publish(tx: Q, staged: StagedChunks): Promise<void> {
  const claimed = await tx`DELETE FROM blob_uploads WHERE blob = ${staged.blob} RETURNING blob`;
  if (claimed.length === 0) throw idleUpload();
  const [held] = await tx`SELECT blob FROM objects WHERE digest = ${staged.digest}`;
  if (held && held.blob !== null) {
    await tx`DELETE FROM blob_chunks WHERE blob = ${staged.blob}`;
    return;
  }
  const [{ n }] = await tx`SELECT count(*) AS n FROM blob_chunks WHERE blob = ${staged.blob}`;
  if (Number(n) !== Math.ceil(staged.size / staged.chunk)) throw idleUpload();
  await tx`INSERT INTO objects (digest, size, created, blob, chunk) VALUES (${staged.digest}, ${staged.size}, ${Date.now()}, ${staged.blob}, ${staged.chunk})
    ON CONFLICT (digest) DO UPDATE SET blob = excluded.blob, chunk = excluded.chunk, size = excluded.size`;
}

/** Deletes an upload that will not be published, with its chunks. */
export async function discardUpload(sql: Q, blob: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`DELETE FROM blob_uploads WHERE blob = ${blob}`;
    await tx`DELETE FROM blob_chunks WHERE blob = ${blob}`;
  });
}

/** Removes uploads idle for UPLOAD_IDLE_MS (their process died), with their chunks; how many. */
export async function reapIdleUploads(sql: Q, now = Date.now()): Promise<number> {
  return sql.begin(async (tx) => {
    const gone = await tx`DELETE FROM blob_uploads WHERE touched < ${now - UPLOAD_IDLE_MS} RETURNING blob`;
    const ids = gone.map((r: { blob: string }) => Number(r.blob));
    if (ids.length > 0) await tx`DELETE FROM blob_chunks WHERE blob IN ${tx(ids)}`;
    return ids.length;
  });
}

/**
 * Deletes the blobs of these digests that no live ref of any tenant needs,
 * inside the caller's transaction (a forget's, holding the LSN lock, so no
 * put publishes a ref to one of them meanwhile). Returns the digests deleted.
 */
export async function dropUnreferenced(tx: Q, digests: string[]): Promise<string[]> {
  const dropped: string[] = [];
  for (const digest of digests) {
    const live = await tx`SELECT 1 FROM tape WHERE kind = 'object' AND subject = ${digest} AND forgotten_by IS NULL LIMIT 1`;
    if (live.length > 0) continue;
    const gone = await tx`DELETE FROM objects WHERE digest = ${digest} RETURNING blob`;
    if (gone.length === 0) continue;
    if (gone[0].blob !== null) await tx`DELETE FROM blob_chunks WHERE blob = ${gone[0].blob}`;
    dropped.push(digest);
  }
  return dropped;
}

/**
 * Streams a published blob's bytes, all or a range, one chunk per pull (the
 * stream asks for the next only when the last was taken, so a slow client
 * holds one chunk). `retry` runs each chunk's query (again on a dropped
 * connection). A blob deleted by a forget while it is read ends the stream
 * with not_found.
 */
export function readChunks(sql: Q, ref: BlobRef, range: ByteRange | undefined, retry: <T>(fn: () => Promise<T>) => Promise<T>): ReadableStream<Uint8Array> {
  const end = Math.min(range?.end ?? ref.size, ref.size);
  let pos = range?.start ?? 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (pos >= end) {
          controller.close();
          return;
        }
        const seq = Math.floor(pos / ref.chunk);
        const offset = pos - seq * ref.chunk;
        const length = Math.min(ref.chunk - offset, end - pos);
        try {
          // substring() is 1-based; on an out-of-line, uncompressed value it reads only the slices it returns.
          const [row] = await retry(
            () => sql`SELECT substring(bytes FROM ${offset + 1} FOR ${length}) AS bytes FROM blob_chunks WHERE blob = ${ref.blob} AND seq = ${seq}`,
          );
          if (!row || row.bytes.length !== length) throw notFound("the object was forgotten while it was read", "object");
          controller.enqueue(new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength));
          pos += length;
        } catch (err) {
          controller.error(err);
        }
      },
    },
    { highWaterMark: 0 },
  );
}
