/**
 * Objects on the PostgreSQL engine (DESIGN.md section 8). The refs are tape
 * rows of kind 'object'; the bytes are chunks in the database (blobs.ts),
 * content-addressed and shared by every tenant and every `serve` on the
 * database: an object put through one machine's `serve` is read through any
 * other's. Streamed in and out one chunk at a time, never buffered whole.
 */
import { join } from "node:path";
import { notFound } from "../../errors.ts";
import { OBJECT_MAX_BYTES_DEFAULT, PAGE_DEFAULT } from "../../limits.ts";
import { createFsBlobStore } from "../../objects/fs-store.ts";
import type { ObjectSource } from "../../objects/types.ts";
import { ObjectPutMeta, type ObjectGetInput, type ObjectListInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import type { ObjectInfo, ObjectListResult, ObjectPutResult } from "../../schema/results.ts";
import type { ObjectBody } from "../types.ts";
import { type Q, insertRow, lockLsns, priorWrite } from "./_tape.ts";
import { opHash } from "../hashes.ts";
import { objectPayload } from "../rows.ts";
import { discardUpload, publish, readChunks, reapIdleUploads, uploadChunks } from "./blobs.ts";
import { decodeJson } from "./nul.ts";

/** The media type of an object put without one. */
const DEFAULT_TYPE = "application/octet-stream";

/** The objects layer of one PostgreSQL store. */
export interface PgObjects {
  put(tenant: string, body: ObjectSource, meta: unknown): Promise<ObjectPutResult>;
  get(tenant: string, input: ObjectGetInput): Promise<ObjectBody>;
  list(tenant: string, input: ObjectListInput): Promise<ObjectListResult>;
}

/** Options of the objects layer. */
export interface PgObjectsOptions {
  maxObjectBytes?: number;
  /** Runs a read query, again on a fresh connection when the pooled one was dead (store.ts). */
  retryRead: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** Opens the objects layer. */
export function pgObjects(sql: Q, opts: PgObjectsOptions): PgObjects {
  const maxBytes = opts.maxObjectBytes ?? OBJECT_MAX_BYTES_DEFAULT;
  return {
    put: (tenant, body, meta) => put(sql, tenant, body, parseInput(ObjectPutMeta, meta ?? {}), maxBytes),
    get: (tenant, input) => get(sql, tenant, input, opts.retryRead),
    list: (tenant, input) => list(sql, tenant, input),
  };
}

async function put(sql: Q, tenant: string, body: ObjectSource, meta: ObjectPutMeta, maxBytes: number): Promise<ObjectPutResult> {
  // Uploads of processes that died are removed here, by whichever `serve` puts next.
  await reapIdleUploads(sql).catch(() => {});
  // Chunks are committed before the ref, under a blob id no reader knows: nothing is visible on bad input (I6),
  // and the ref and the digest's blob are published in one transaction (I7).
  const staged = await uploadChunks(sql, body, maxBytes);
  const type = meta.type ?? DEFAULT_TYPE;
  const name = meta.name ?? null;
  const { digest, size } = staged;
  const op = meta.idem_key ? opHash.object(digest, type, name) : null;
  let published = false;
  try {
    const result = await sql.begin(async (tx): Promise<ObjectPutResult> => {
      const lsns = await lockLsns(tx);
      if (meta.idem_key) {
        const prior = await priorWrite(tx, tenant, meta.idem_key, op!, "idem_key");
        if (prior !== undefined) return { object: digest, size, type, lsn: prior, duplicate: true };
      }
      await publish(tx, staged);
      const lsn = lsns.next();
      await insertRow(tx, lsn, { tenant, ts: Date.now(), idemKey: meta.idem_key ?? null, opHash: op, ...objectPayload(digest, { size, type, name }) });
      await lsns.release();
      return { object: digest, size, type, lsn, duplicate: false };
    });
    published = !result.duplicate;
    return result;
  } finally {
    // A duplicate, or a transaction that did not commit, leaves the staged chunks to delete.
    if (!published) await discardUpload(sql, staged.blob).catch(() => {});
  }
}

/** The tenant's newest live ref to a digest. A foreign digest and an unknown one fail alike (I5). */
async function get(sql: Q, tenant: string, input: ObjectGetInput, retry: PgObjectsOptions["retryRead"]): Promise<ObjectBody> {
  const [row] = await sql`SELECT t.lsn, t.subject, t.data, o.blob, o.size AS blob_size, o.chunk FROM tape t LEFT JOIN objects o ON o.digest = t.subject
    WHERE t.tenant = ${tenant} AND t.kind = 'object' AND t.subject = ${input.object} AND t.forgotten_by IS NULL ORDER BY t.lsn DESC LIMIT 1`;
  if (!row) throw notFound(`no object ${input.object}`, "object");
  const info = toInfo(row);
  // A ref imported from an export (records only), or a blob schema 1 left on a machine that has not opened this database since.
  if (row.blob === null) throw notFound(`the bytes of ${info.object} are not in this database`, "object");
  const ref = { blob: Number(row.blob), size: Number(row.blob_size), chunk: Number(row.chunk) };
  return { ...info, size: ref.size, read: (range) => readChunks(sql, ref, range, retry) };
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

/**
 * Moves into the database the blobs a schema-1 `serve` kept on this machine's
 * disk (`<data dir>/objects`, before migration 002): each is streamed in,
 * published where its row still has no blob, and its local file removed (a
 * forget would no longer find it there). Blobs on other machines stay
 * `not_found` until a `serve` there opens the database.
 */
export async function adoptLocalBlobs(sql: Q, dataDir: string, maxBytes = OBJECT_MAX_BYTES_DEFAULT): Promise<number> {
  const waiting = await sql`SELECT digest FROM objects WHERE blob IS NULL`;
  if (waiting.length === 0) return 0;
  const local = createFsBlobStore(join(dataDir, "objects"));
  let adopted = 0;
  for (const { digest } of waiting as { digest: string }[]) {
    if (!local.stat(digest)) continue;
    const staged = await uploadChunks(sql, local.read(digest), maxBytes);
    let placed = false;
    try {
      // A file that no longer hashes to its name is left where it is.
      if (staged.digest !== digest) continue;
      placed = await sql.begin(async (tx) => {
        await lockLsns(tx);
        const [row] = await tx`SELECT blob FROM objects WHERE digest = ${digest} FOR UPDATE`;
        if (!row || row.blob !== null) return false;
        await publish(tx, staged);
        return true;
      });
    } finally {
      if (!placed) await discardUpload(sql, staged.blob).catch(() => {});
    }
    if (placed) {
      local.delete(digest);
      adopted++;
    }
  }
  return adopted;
}

function toInfo(row: { lsn: string; subject: string; data: { size: number; type: string; name?: string | null } }): ObjectInfo {
  // A name holds no NUL (refused), but may hold the noncharacters NUL's encoding escapes.
  const data = decodeJson(row.data);
  return { object: row.subject, size: Number(data.size), type: data.type, name: data.name ?? null, lsn: Number(row.lsn) };
}
