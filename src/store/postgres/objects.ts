/**
 * Objects on the PostgreSQL engine (DESIGN.md section 8). The refs are tape
 * rows of kind 'object' in PostgreSQL; the bytes stay in the content-addressed
 * blob store of src/objects/ under the local data dir (`<data dir>/objects`),
 * streamed to and from disk, never buffered whole. So the bytes live on the
 * machine of the `serve` that took them: several `serve` processes on several
 * machines share refs but not bytes (README, "Team server on PostgreSQL").
 */
import { join } from "node:path";
import { notFound } from "../../errors.ts";
import { OBJECT_MAX_BYTES_DEFAULT, PAGE_DEFAULT } from "../../limits.ts";
import { createFsBlobStore } from "../../objects/fs-store.ts";
import type { BlobStore, ObjectSource } from "../../objects/types.ts";
import { SearchClass } from "../../search/classify.ts";
import { ObjectPutMeta, type ObjectGetInput, type ObjectListInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import type { ObjectInfo, ObjectListResult, ObjectPutResult } from "../../schema/results.ts";
import type { ObjectBody } from "../types.ts";
import { type Q, insertRow, lockLsns, priorWrite } from "./_tape.ts";
import { opHash } from "../hashes.ts";

/** The media type of an object put without one. */
const DEFAULT_TYPE = "application/octet-stream";

/** The objects layer of one PostgreSQL store. */
export interface PgObjects {
  put(tenant: string, body: ObjectSource, meta: unknown): Promise<ObjectPutResult>;
  get(tenant: string, input: ObjectGetInput): Promise<ObjectBody>;
  list(tenant: string, input: ObjectListInput): Promise<ObjectListResult>;
  /** Deletes the blobs of these digests that no live ref of any tenant needs any more. */
  collect(digests: string[]): Promise<void>;
  /** Digests that puts of dead processes may have published without committing a ref (collect them once at open). */
  readonly orphans: string[];
}

/** Opens the objects layer over a data dir's blob store. */
export function pgObjects(sql: Q, dataDir: string, opts: { maxObjectBytes?: number } = {}): PgObjects {
  const blobs = createFsBlobStore(join(dataDir, "objects"));
  const maxBytes = opts.maxObjectBytes ?? OBJECT_MAX_BYTES_DEFAULT;
  let orphans: string[] = [];
  try {
    orphans = blobs.cleanup().orphans;
  } catch {
    // Leftover temp files waste space but harm nothing; opening must not fail on them.
  }
  return {
    orphans,
    put: (tenant, body, meta) => put(sql, blobs, tenant, body, parseInput(ObjectPutMeta, meta ?? {}), maxBytes),
    get: (tenant, input) => get(sql, blobs, tenant, input),
    list: (tenant, input) => list(sql, tenant, input),
    collect: (digests) => collect(sql, blobs, digests),
  };
}

async function put(sql: Q, blobs: BlobStore, tenant: string, body: ObjectSource, meta: ObjectPutMeta, maxBytes: number): Promise<ObjectPutResult> {
  // Bytes go to a fsynced temp file first: nothing is committed on bad input (I6), and no ref points at partial bytes (I7).
  const staged = await blobs.stage(body, { maxBytes });
  const type = meta.type ?? DEFAULT_TYPE;
  const name = meta.name ?? null;
  const { digest, size } = staged;
  const op = meta.idem_key ? opHash.object(digest, type, name) : null;
  let placed = false;
  try {
    // The blob is published while the LSN lock is held, the lock a collection takes too, so it cannot delete it in between (I7).
    return await sql.begin(async (tx): Promise<ObjectPutResult> => {
      const lsns = await lockLsns(tx);
      if (meta.idem_key) {
        const prior = await priorWrite(tx, tenant, meta.idem_key, op!, "idem_key");
        if (prior !== undefined) return { object: digest, size, type, lsn: prior, duplicate: true };
      }
      placed = staged.place();
      await tx`INSERT INTO objects (digest, size, created) VALUES (${digest}, ${size}, ${Date.now()}) ON CONFLICT (digest) DO NOTHING`;
      const lsn = lsns.next();
      await insertRow(tx, lsn, {
        tenant,
        kind: "object",
        ts: Date.now(),
        subject: digest,
        idemKey: meta.idem_key ?? null,
        opHash: op,
        contentHash: null,
        bytes: size,
        text: null,
        data: { size, type, name },
        sclass: SearchClass.note,
      });
      await lsns.release();
      return { object: digest, size, type, lsn, duplicate: false };
    });
  } catch (err) {
    // The ref did not commit: a blob this put published, with no row, goes again.
    if (placed) await collect(sql, blobs, [digest]).catch(() => {});
    throw err;
  } finally {
    staged.discard();
  }
}

/** The tenant's newest live ref to a digest. A foreign digest and an unknown one fail alike (I5). */
async function get(sql: Q, blobs: BlobStore, tenant: string, input: ObjectGetInput): Promise<ObjectBody> {
  const [row] = await sql`SELECT lsn, subject, data FROM tape WHERE tenant = ${tenant} AND kind = 'object' AND subject = ${input.object}
    AND forgotten_by IS NULL ORDER BY lsn DESC LIMIT 1`;
  if (!row) throw notFound(`no object ${input.object}`, "object");
  const info = toInfo(row);
  const st = blobs.stat(info.object);
  // A ref whose bytes another `serve` machine holds, or a tape imported without its objects.
  if (!st) throw notFound(`the bytes of ${info.object} are not in this server's data dir`, "object");
  return { ...info, size: st.size, path: blobs.path(info.object), read: (range) => blobs.read(info.object, range) };
}

/** The objects the tenant holds, one entry per digest (its newest ref), in LSN order. */
async function list(sql: Q, tenant: string, input: ObjectListInput): Promise<ObjectListResult> {
  const limit = input.limit ?? PAGE_DEFAULT;
  const rows = await sql`SELECT lsn, subject, data FROM tape WHERE lsn IN (
      SELECT max(lsn) FROM tape WHERE tenant = ${tenant} AND kind = 'object' AND forgotten_by IS NULL GROUP BY subject)
    AND lsn > ${input.after ?? 0} ORDER BY lsn LIMIT ${limit + 1}`;
  const objects = rows.slice(0, limit).map(toInfo);
  return { objects, next: rows.length > limit ? objects[objects.length - 1]!.lsn : null };
}

/** Deletes blobs no live ref needs, under the LSN lock (so no put publishes one meanwhile). */
async function collect(sql: Q, blobs: BlobStore, digests: string[]): Promise<void> {
  if (digests.length === 0) return;
  await sql.begin(async (tx) => {
    await tx`SELECT last FROM lsn_counter WHERE id = 1 FOR UPDATE`;
    for (const digest of digests) {
      const live = await tx`SELECT 1 FROM tape WHERE kind = 'object' AND subject = ${digest} AND forgotten_by IS NULL LIMIT 1`;
      if (live.length > 0) continue;
      blobs.delete(digest);
      await tx`DELETE FROM objects WHERE digest = ${digest}`;
    }
  });
}

function toInfo(row: { lsn: string; subject: string; data: { size: number; type: string; name?: string | null } }): ObjectInfo {
  return { object: row.subject, size: Number(row.data.size), type: row.data.type, name: row.data.name ?? null, lsn: Number(row.lsn) };
}
