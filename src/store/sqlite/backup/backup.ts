/**
 * `zerodb backup`: one file holding a consistent snapshot of a live store
 * (issue 20, DESIGN.md 15), in the format of format.ts: all of it,
 * or an increment of what came after an earlier backup. The tape is
 * read inside one read transaction, so every row comes from the same WAL
 * snapshot while other processes keep committing
 * (https://sqlite.org/wal.html#concurrency: a reader sees the database as of
 * its first read). Blobs are immutable and content-addressed, so the bytes at
 * a digest's path are those the snapshot's refs name, as long as the file is
 * still there; a forget committed after the snapshot may have deleted it.
 */
import type { Database } from "bun:sqlite";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ZeroDbError, invalid } from "../../../errors.ts";
import type { BlobStore } from "../../../objects/types.ts";
import type { BackupHeader, CursorRecord, TokenRecord } from "../../../schema/backup.ts";
import { BACKUP_MAGIC, BACKUP_VERSION, headerOf, recordSum } from "./format.ts";
import { storeIdOf } from "../identity.ts";
import { lineageOf, sameHistory } from "./lineage.ts";
import { exportRows } from "../transfer.ts";

import type { BackupCounts } from "../../types.ts";

const CHUNK = 1 << 20;

/** What a backup holds: every tenant or one; everything, or the records after an LSN. */
export interface BackupScope {
  tenant?: string;
  after?: number;
  /** A backup this one continues: after its last LSN, for its tenant. */
  since?: string;
}

/**
 * The tenant and LSN an increment starts from. `since` must be a backup of
 * this store (its id), of this copy's history (its lineage) and not ahead
 * of it; checked before anything is written.
 */
export function backupStart(db: Database, scope: BackupScope): { tenant?: string; after: number } {
  if (scope.since === undefined) return { tenant: scope.tenant, after: scope.after ?? 0 };
  if (scope.after !== undefined) throw invalid("since", "give --after or --since, not both");
  const h = headerOf(scope.since, "since");
  const name = scope.since;
  if (h.store_id !== storeIdOf(db)) {
    throw new ZeroDbError("conflict", `since: ${name} is a backup of another store (store ${h.store_id}), not of this one (store ${storeIdOf(db)})`, {
      field: "since",
    });
  }
  if (scope.tenant !== undefined && scope.tenant !== h.tenant) {
    throw new ZeroDbError("conflict", `since: ${name} backs up ${h.tenant === null ? "every tenant" : `tenant ${h.tenant}`}, not tenant ${scope.tenant}`, {
      field: "since",
    });
  }
  const last = (db.query("SELECT coalesce(max(lsn), 0) AS n FROM tape").get() as { n: number }).n;
  if (h.last_lsn > last) throw new ZeroDbError("conflict", `since: ${name} ends at lsn ${h.last_lsn}, past this store's last lsn ${last}`, { field: "since" });
  if (h.lineage && !sameHistory(h.lineage, lineageOf(db), h.last_lsn)) {
    throw new ZeroDbError(
      "conflict",
      `since: ${name} was taken from another copy of this store (one restored from the same backup and written to since): an increment of this copy would not continue it`,
      { field: "since" },
    );
  }
  return { tenant: h.tenant ?? undefined, after: h.last_lsn };
}

/**
 * The backup's bytes, chunk by chunk, read from one snapshot: a full
 * backup (`after` 0) or an increment of the records after `after` with the
 * objects they reference. `counts` is filled in as it goes and is complete
 * once the generator returns. A blob missing or whose bytes no longer hash
 * to its digest stops the backup with an error naming it: a backup never
 * leaves an object out silently.
 */
export function* backupChunks(db: Database, blobs: BlobStore, opts: { tenant?: string; after?: number; counts: BackupCounts }): Generator<Uint8Array> {
  const hasher = new Bun.CryptoHasher("sha256");
  const out = (chunk: string | Uint8Array): Uint8Array => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    hasher.update(bytes);
    return bytes;
  };
  const { tenant, counts } = opts;
  const after = opts.after ?? 0;
  // A deferred transaction: its first SELECT fixes the snapshot; writers in other processes are not blocked (WAL).
  db.run("BEGIN");
  try {
    const byTenant = tenant !== undefined ? "AND tenant = ?" : "";
    const params = tenant !== undefined ? [tenant] : [];
    // The store's last LSN, whatever the tenant: an increment --since this file starts there, and no
    // record of the tenant lies between its own last one and this (LSNs are handed out in commit order).
    const last = (db.query("SELECT coalesce(max(lsn), 0) AS n FROM tape").get() as { n: number }).n;
    if (after > last) throw invalid("after", `this store's last lsn is ${last}: an increment after ${after} would hold nothing it could continue`);
    const header: BackupHeader = {
      store_id: storeIdOf(db),
      tenant: tenant ?? null,
      after,
      last_lsn: last,
      lineage: lineageOf(db),
      created: new Date().toISOString(),
    };
    yield out(`${BACKUP_MAGIC} ${BACKUP_VERSION} ${JSON.stringify(header)}\n`);
    Object.assign(counts, { after, last_lsn: last });
    let buf = "";
    const line = function* (kind: string, value: unknown) {
      const json = JSON.stringify(value);
      buf += `${kind} ${recordSum(json)} ${json}\n`;
      if (buf.length > CHUNK) {
        yield out(buf);
        buf = "";
      }
    };
    for (const rec of exportRows(db, { tenant, after })) {
      yield* line("R", rec);
      counts.records++;
    }
    // Tokens and cursors are state beside the tape: every file holds all of them, as of the snapshot.
    for (const t of db.query(`SELECT digest, id, tenant, created, revoked FROM tokens WHERE 1 ${byTenant} ORDER BY created, id`).iterate(...params)) {
      const row = t as Omit<TokenRecord, "digest"> & { digest: Uint8Array };
      yield* line("T", { ...row, digest: Buffer.from(row.digest).toString("hex") } satisfies TokenRecord);
      counts.tokens++;
    }
    const cursors = `SELECT tenant, source, session, path, offset, position, chunk, updated FROM capture_cursors WHERE 1 ${byTenant} ORDER BY tenant, source`;
    for (const c of db.query(cursors).iterate(...params)) {
      yield* line("C", c as CursorRecord);
      counts.cursors++;
    }
    if (buf) yield out(buf);
    // Every object a live record of this file references, even one an earlier file holds: simple and always enough.
    const digests = db
      .query(`SELECT DISTINCT subject FROM tape WHERE lsn > ? AND kind = 'object' AND forgotten_by IS NULL ${byTenant} ORDER BY subject`)
      .all(after, ...params) as { subject: string }[];
    for (const { subject } of digests) {
      yield* objectFrame(blobs, subject, out);
      counts.objects++;
    }
  } finally {
    db.run("COMMIT");
  }
  const trailer = { records: counts.records, tokens: counts.tokens, cursors: counts.cursors, objects: counts.objects, sha256: hasher.digest("hex") };
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
