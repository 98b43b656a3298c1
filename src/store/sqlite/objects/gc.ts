/**
 * Collecting blobs (DESIGN.md section 8, I9): a blob no live ref of any
 * tenant points at is deleted from disk. Each check and its deletion run
 * under the store's write lock, the lock a put holds while it publishes a
 * blob and commits its ref, so the two never interleave.
 */
import type { Database } from "bun:sqlite";
import type { BlobStore } from "../../../objects/types.ts";

const hasLiveRef = "SELECT 1 FROM tape WHERE kind = 'object' AND subject = ? AND forgotten_by IS NULL LIMIT 1";

/** Deletes the queued blobs (see object_gc in 002_objects.sql) that no live ref needs any more. */
export function collect(db: Database, blobs: BlobStore): void {
  // Cheap when there is nothing to do: this runs on every open.
  if (!db.query("SELECT 1 FROM object_gc LIMIT 1").get()) return;
  db.transaction(() => {
    const pending = db.query("SELECT digest FROM object_gc").all() as { digest: string }[];
    for (const { digest } of pending) {
      if (!db.query(hasLiveRef).get(digest)) {
        try {
          blobs.delete(digest);
        } catch {
          // Left queued: the next open or forget retries it; a failed unlink must not fail the forget that committed.
          continue;
        }
        db.query("DELETE FROM objects WHERE digest = ?").run(digest);
      }
      db.query("DELETE FROM object_gc WHERE digest = ?").run(digest);
    }
  }).immediate();
}

/**
 * Deletes blobs a put published without committing its ref (it crashed, or
 * its transaction failed): a blob with no row in `objects` has no ref.
 */
export function reconcile(db: Database, blobs: BlobStore, digests: string[]): void {
  db.transaction(() => {
    for (const digest of digests) {
      if (!db.query("SELECT 1 FROM objects WHERE digest = ?").get(digest)) blobs.delete(digest);
    }
  }).immediate();
}

/** Bytes on disk of the distinct blobs a tenant holds live refs to. */
export function objectBytes(db: Database, tenant: string): number {
  const r = db
    .query(
      `SELECT coalesce(sum(o.size), 0) AS bytes FROM objects o
       WHERE o.digest IN (SELECT subject FROM tape WHERE tenant = ? AND kind = 'object' AND forgotten_by IS NULL)`,
    )
    .get(tenant) as { bytes: number };
  return r.bytes;
}
