/**
 * object_put, object_get and the object listing on the SQLite tape
 * (DESIGN.md sections 5 and 8). A ref is a tape row of kind 'object'; the
 * bytes live in the blob store, published inside the ref's transaction (I7).
 */
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { notFound } from "../../../errors.ts";
import { OBJECT_MAX_BYTES_DEFAULT, PAGE_DEFAULT } from "../../../limits.ts";
import { createFsBlobStore } from "../../../objects/fs-store.ts";
import type { BlobStore, ObjectSource } from "../../../objects/types.ts";
import type { ObjectGetInput, ObjectListInput, ObjectPutMeta } from "../../../schema/ops.ts";
import { parseInput } from "../../../schema/parse.ts";
import type { ObjectInfo, ObjectListResult, ObjectPutResult } from "../../../schema/results.ts";
import type { ObjectBody } from "../../types.ts";
import { insertRow, priorWrite, verifyRow } from "../_tape.ts";
import { collect, reconcile } from "./gc.ts";
import { opHash } from "../../hashes.ts";
import { objectPayload } from "../../rows.ts";
import { sqlitePayload } from "../row-data.ts";

/** The media type of an object put without one. */
export const DEFAULT_TYPE = "application/octet-stream";

/** Options of the objects layer. */
export interface ObjectsOptions {
  /** Largest object accepted (config max_object_bytes). */
  maxObjectBytes?: number;
}

/** The objects layer of one SQLite store. */
export interface ObjectsEngine {
  readonly blobs: BlobStore;
  put(tenant: string, body: ObjectSource, meta: unknown): Promise<ObjectPutResult>;
  get(tenant: string, input: ObjectGetInput): ObjectBody;
  list(tenant: string, input: ObjectListInput): ObjectListResult;
  /** Deletes the blobs that forgets left without a live ref; never throws (what fails stays queued). */
  collect(): void;
}

interface RefRow {
  lsn: number;
  subject: string;
  text: null;
  data: string;
  checksum: Uint8Array | null;
}

/**
 * Opens the objects layer: removes temp files of crashed puts, drops any blob
 * such a put published without committing its ref, and finishes collections
 * a crash interrupted.
 */
export function openObjects(db: Database, dataDir: string, opts: ObjectsOptions = {}): ObjectsEngine {
  const blobs = createFsBlobStore(join(dataDir, "objects"));
  const maxBytes = opts.maxObjectBytes ?? OBJECT_MAX_BYTES_DEFAULT;
  try {
    const { orphans } = blobs.cleanup();
    if (orphans.length > 0) reconcile(db, blobs, orphans);
    collect(db, blobs);
  } catch {
    // Leftovers waste space but harm nothing; the next open retries, and opening the store must not fail on them.
  }
  return {
    blobs,
    // The op schemas load with the first put, not with the store: a capture hook opens it and never puts.
    put: async (tenant, body, meta) => {
      const { ObjectPutMeta } = await import("../../../schema/ops.ts");
      return put({ db, blobs }, { tenant, body, meta: parseInput(ObjectPutMeta, meta ?? {}), maxBytes });
    },
    get: (tenant, input) => get({ db, blobs }, tenant, input),
    list: (tenant, input) => list(db, tenant, input),
    collect: () => {
      try {
        collect(db, blobs);
      } catch {
        // The forget already committed and its digests stay queued: the next open or forget finishes the work.
      }
    },
  };
}

/** Where objects live: the tape's refs and the blob files. */
interface Place {
  db: Database;
  blobs: BlobStore;
}

async function put(
  { db, blobs }: Place,
  { tenant, body, meta, maxBytes }: { tenant: string; body: ObjectSource; meta: ObjectPutMeta; maxBytes: number },
): Promise<ObjectPutResult> {
  // The meta was validated before this point; the bytes go to a temp file first (I6: nothing is committed on bad input).
  const staged = await blobs.stage(body, { maxBytes });
  const type = meta.type ?? DEFAULT_TYPE;
  const name = meta.name ?? null;
  const { digest, size } = staged;
  const op = meta.idem_key ? opHash.object(digest, type, name) : null;
  let placed = false;
  try {
    // Publishing the file and committing the ref share one write lock, so a
    // collection cannot delete the blob between the two (I7).
    return db
      .transaction((): ObjectPutResult => {
        if (meta.idem_key) {
          const prior = priorWrite(db, { tenant, idemKey: meta.idem_key, opHash: op!, field: "idem_key" });
          if (prior !== undefined) return { object: digest, size, type, lsn: prior, duplicate: true };
        }
        placed = staged.place();
        db.query("INSERT INTO objects (digest, size, created) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING").run(digest, size, Date.now());
        const lsn = insertRow(db, {
          tenant,
          ts: Date.now(),
          idemKey: meta.idem_key ?? null,
          opHash: op,
          ...sqlitePayload(objectPayload(digest, { size, type, name })),
        });
        return { object: digest, size, type, lsn, duplicate: false };
      })
      .immediate();
  } catch (err) {
    // The ref did not commit: a blob this put published has no row, so it goes again.
    if (placed) reconcile(db, blobs, [digest]);
    throw err;
  } finally {
    staged.discard();
  }
}

/** The tenant's newest live ref to a digest. A foreign digest and an unknown one fail alike (I5). */
function get({ db, blobs }: Place, tenant: string, input: ObjectGetInput): ObjectBody {
  const row = db
    .query(
      `SELECT lsn, subject, text, data, checksum FROM tape WHERE tenant = ? AND kind = 'object' AND subject = ? AND forgotten_by IS NULL
       ORDER BY lsn DESC LIMIT 1`,
    )
    .get(tenant, input.object) as RefRow | null;
  if (!row) throw notFound(`no object ${input.object}`, "object");
  const info = toInfo(verifyRow(db, row));
  const st = blobs.stat(info.object);
  // A ref without bytes: a tape imported without its object files.
  if (!st)
    throw notFound(
      `the bytes of ${info.object} are not in this store (an export carries no object bytes: move a store with zerodb backup and restore)`,
      "object",
    );
  return { ...info, size: st.size, path: blobs.path(info.object), read: (range) => blobs.read(info.object, range) };
}

/** The objects the tenant holds, one entry per digest (its newest ref), in LSN order. */
function list(db: Database, tenant: string, input: ObjectListInput): ObjectListResult {
  const limit = input.limit ?? PAGE_DEFAULT;
  const rows = db
    .query(
      `SELECT t.lsn, t.subject, t.text, t.data, t.checksum FROM tape t JOIN (
         SELECT max(lsn) AS lsn FROM tape WHERE tenant = ? AND kind = 'object' AND forgotten_by IS NULL GROUP BY subject
       ) newest ON t.lsn = newest.lsn
       WHERE t.lsn > ? ORDER BY t.lsn LIMIT ?`,
    )
    .all(tenant, input.after ?? 0, limit + 1) as RefRow[];
  const more = rows.length > limit;
  const objects = rows.slice(0, limit).map((r) => toInfo(verifyRow(db, r)));
  return { objects, next: more ? objects[objects.length - 1]!.lsn : null };
}

function toInfo(row: RefRow): ObjectInfo {
  const data = JSON.parse(row.data) as { size: number; type: string; name?: string | null };
  return { object: row.subject, size: data.size, type: data.type, name: data.name ?? null, lsn: row.lsn };
}
