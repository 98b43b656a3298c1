/**
 * `zerodb backup`: one file holding a consistent snapshot of a live store
 * (issue 20, DESIGN.md 15), in the format of backup-format.ts. The tape is
 * read inside one read transaction, so every row comes from the same WAL
 * snapshot while other processes keep committing
 * (https://sqlite.org/wal.html#concurrency: a reader sees the database as of
 * its first read). Blobs are immutable and content-addressed, so the bytes at
 * a digest's path are those the snapshot's refs name, as long as the file is
 * still there; a forget committed after the snapshot may have deleted it.
 */
import type { Database } from "bun:sqlite";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ZeroDbError } from "../../errors.ts";
import type { BlobStore } from "../../objects/types.ts";
import { BACKUP_MAGIC, BACKUP_VERSION, type BackupHeader, recordSum } from "./backup-format.ts";
import { storeIdOf } from "./identity.ts";
import { exportRows } from "./transfer.ts";

import type { BackupCounts } from "../types.ts";

const CHUNK = 1 << 20;

/**
 * The backup's bytes, chunk by chunk, read from one snapshot. `counts` is
 * filled in as it goes and is complete once the generator returns. A blob
 * missing or whose bytes no longer hash to its digest stops the backup with
 * an error naming it: a backup never leaves an object out silently.
 */
export function* backupChunks(db: Database, blobs: BlobStore, opts: { tenant?: string; counts: BackupCounts }): Generator<Uint8Array> {
  const hasher = new Bun.CryptoHasher("sha256");
  const out = (chunk: string | Uint8Array): Uint8Array => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    hasher.update(bytes);
    return bytes;
  };
  const { tenant, counts } = opts;
  // A deferred transaction: its first SELECT fixes the snapshot; writers in other processes are not blocked (WAL).
  db.run("BEGIN");
  try {
    const where = tenant !== undefined ? "WHERE tenant = ?" : "";
    const params = tenant !== undefined ? [tenant] : [];
    const last = (db.query(`SELECT max(lsn) AS n FROM tape ${where}`).get(...params) as { n: number | null }).n ?? 0;
    const header: BackupHeader = { store_id: storeIdOf(db), tenant: tenant ?? null, last_lsn: last, created: new Date().toISOString() };
    yield out(`${BACKUP_MAGIC} ${BACKUP_VERSION} ${JSON.stringify(header)}\n`);
    counts.last_lsn = last;
    let buf = "";
    for (const rec of exportRows(db, tenant)) {
      const json = JSON.stringify(rec);
      buf += `R ${recordSum(json)} ${json}\n`;
      counts.records++;
      if (buf.length > CHUNK) {
        yield out(buf);
        buf = "";
      }
    }
    if (buf) yield out(buf);
    const digests = db
      .query(
        `SELECT DISTINCT subject FROM tape WHERE kind = 'object' AND forgotten_by IS NULL ${tenant !== undefined ? "AND tenant = ?" : ""} ORDER BY subject`,
      )
      .all(...params) as { subject: string }[];
    for (const { subject } of digests) {
      yield* objectFrame(blobs, subject, out);
      counts.objects++;
    }
  } finally {
    db.run("COMMIT");
  }
  const trailer = { records: counts.records, objects: counts.objects, sha256: hasher.digest("hex") };
  yield Buffer.from(`END ${JSON.stringify(trailer)}\n`, "utf8");
}

/** One object's frame, its bytes hashed as they are copied. */
function* objectFrame(blobs: BlobStore, digest: string, out: (c: string | Uint8Array) => Uint8Array): Generator<Uint8Array> {
  let fd: number;
  try {
    // Once open, the bytes stay readable even if a forget unlinks the file meanwhile.
    fd = openSync(blobs.path(digest), "r");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") {
      throw new ZeroDbError(
        "conflict",
        `object ${digest} was deleted while the backup ran (a forget committed after the snapshot, or the file is missing): no backup was written; run the backup again`,
        { field: "object" },
      );
    }
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    yield out(`O ${digest} ${size}\n`);
    const hasher = new Bun.CryptoHasher("sha256");
    let left = size;
    while (left > 0) {
      const chunk = Buffer.alloc(Math.min(CHUNK, left));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      hasher.update(chunk.subarray(0, n));
      left -= n;
      yield out(chunk.subarray(0, n));
    }
    if (left !== 0 || `sha256:${hasher.digest("hex")}` !== digest) {
      throw new ZeroDbError("corrupt", `object ${digest}: its file in the store does not hash to its digest (damaged on disk): no backup was written`);
    }
    yield out("\n");
  } finally {
    closeSync(fd);
  }
}
