/**
 * `zerodb restore`: rebuilds a store from a full backup and the increments
 * that continue it (issue 20, DESIGN.md 15) into a temp dir beside the
 * target. Every header is checked first (one store, one tenant selection, no
 * gap, one copy's history); then each file's record checksums, object
 * digests and trailer (restore-file.ts); then every live object ref having
 * its bytes and every restored record read back against its checksum. Only
 * then is the temp dir renamed to the target. A damaged, truncated or
 * misplaced file is refused naming it; a failure (or kill -9) never leaves a
 * half-restored store at the target.
 */
import type { Database } from "bun:sqlite";
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ZeroDbError } from "../../../errors.ts";
import { createFsBlobStore } from "../../../objects/fs-store.ts";
import type { BlobStore } from "../../../objects/types.ts";
import type { BackupHeader, Lineage } from "../../../schema/backup.ts";
import { fsyncDir, writeFileAtomic } from "../../../util/atomic.ts";
import { checkObjectSize } from "../../restore-check.ts";
import type { RestoreResult } from "../../types.ts";
import { damaged, headerOf, inFile, openBackup, readHeader } from "./format.ts";
import { checkpoint } from "../forget/forget.ts";
import { ID_FILE } from "../identity.ts";
import { forkAt, sameHistory, saveLineage } from "./lineage.ts";
import { openDatabase } from "../open.ts";
import { restoreFile } from "./restore-file.ts";
import { damagedRows } from "../verify.ts";
import { fromSqliteError } from "../errors.ts";

/**
 * Refuses a target that holds anything: restoring over a store could bring
 * back what a newer forget purged there, or mix two stores' records.
 */
export function checkRestoreTarget(target: string): void {
  let entries: string[];
  try {
    if (!statSync(target).isDirectory()) throw new ZeroDbError("invalid_input", `data dir ${target} exists and is not a directory`, { field: "data_dir" });
    entries = readdirSync(target);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return;
    throw err;
  }
  if (entries.length > 0) {
    throw new ZeroDbError(
      "conflict",
      `data dir ${target} is not empty: restore only rebuilds into an empty or new dir (it never merges into, or rolls back, a store)`,
      {
        field: "data_dir",
      },
    );
  }
}

/**
 * Restores `files` (a full backup, then the increments that continue it, in
 * order) into `dataDir`, which must be empty or not exist.
 */
export async function restoreBackup(files: string[], dataDir: string): Promise<RestoreResult> {
  try {
    return await restoreInto(files, dataDir);
  } catch (err) {
    throw fromSqliteError(err);
  }
}

/** restoreBackup, its failures not yet mapped. */
async function restoreInto(files: string[], dataDir: string): Promise<RestoreResult> {
  const target = resolve(dataDir);
  checkRestoreTarget(target);
  if (!isDir(dirname(target))) throw new ZeroDbError("invalid_input", `data_dir: the directory ${dirname(target)} does not exist`, { field: "data_dir" });
  if (files.length === 0) throw new ZeroDbError("invalid_input", "file: give the backup to restore", { field: "file" });
  for (const file of files) {
    if (isDir(file)) throw new ZeroDbError("invalid_input", `file: ${file} is a directory, not a backup`, { field: "file" });
  }
  // Every header before anything is written: a chain that cannot hold together is refused at once.
  const headers = files.map((file) => headerOf(file));
  checkChain(files, headers);
  removeDeadTemps(target);
  const rand = Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex");
  const temp = join(dirname(target), `.${basename(target)}.restore-${process.pid}-${rand}`);
  let db: Database | undefined;
  try {
    mkdirSync(temp, { mode: 0o700 });
    // An equal store keeps its source's id (README: a restored copy and its source), so its
    // records' checksums are the source's and its backups continue the source's chain.
    writeFileAtomic(join(temp, ID_FILE), `${headers[0]!.store_id}\n`, { mode: 0o600, exclusive: true });
    db = openDatabase(temp);
    const blobs = createFsBlobStore(join(temp, "objects"));
    for (const [i, file] of files.entries()) {
      const reader = openBackup(file);
      try {
        // The header again, from this read: the trailer's digest covers it, so it is the one checked above or the file changed.
        if (JSON.stringify(readHeader(reader)) !== JSON.stringify(headers[i])) throw damaged("the file changed while the restore read it");
        await restoreFile(db, reader, blobs, headers[i]!);
      } catch (err) {
        throw inFile(err, file, "nothing was restored");
      } finally {
        reader.close();
      }
    }
    const last = headers[headers.length - 1]!;
    const counts = finish(db, blobs, last);
    db.close();
    db = undefined;
    try {
      renameSync(temp, target);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "ENOTEMPTY" || code === "EEXIST")
        throw new ZeroDbError("conflict", `data dir ${target} was filled while the restore ran`, { field: "data_dir" });
      throw err;
    }
    fsyncDir(dirname(target));
    return { ...counts, last_lsn: last.last_lsn, files: files.length, data_dir: target, store_id: last.store_id, tenant: last.tenant };
  } catch (err) {
    db?.close();
    rmSync(temp, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The files make one chain: a full backup first, then increments of the same
 * store and tenant selection, each starting at or before where the files
 * before it end (a gap would lose records), none older than those, and each
 * of the same copy's history up to where it starts. An increment of files
 * ending at lsn 0 starts at 0 too, and looks like the full backup it is.
 */
function checkChain(files: string[], headers: BackupHeader[]): void {
  const first = headers[0]!;
  if (first.after !== 0) {
    throw new ZeroDbError(
      "invalid_input",
      `${files[0]}: an increment (the records after lsn ${first.after}): restore starts from a full backup, then the increments that follow it, in order`,
      { field: "file" },
    );
  }
  const selection = (t: string | null) => (t === null ? "every tenant" : `tenant ${t}`);
  for (let i = 1; i < files.length; i++) {
    const [h, prev, file] = [headers[i]!, headers[i - 1]!, files[i]!];
    const refuse = (why: string) => new ZeroDbError("conflict", `${file}: ${why}; nothing was restored`, { field: "file" });
    if (h.store_id !== first.store_id)
      throw refuse(`a backup of another store (store ${h.store_id}), not of the store ${files[0]} backs up (store ${first.store_id})`);
    if (h.tenant !== first.tenant) throw refuse(`backs up ${selection(h.tenant)}, the files before it ${selection(first.tenant)}`);
    // An increment of files that hold nothing (an empty store's backups) starts at lsn 0 as a full
    // backup does, and continues them exactly; only where records came before is a full backup misplaced.
    if (h.after === 0 && prev.last_lsn > 0) throw refuse("a full backup, not an increment: restore takes one full backup, then its increments");
    if (h.after > prev.last_lsn) {
      throw refuse(
        `holds the records after lsn ${h.after}, but the files before it end at lsn ${prev.last_lsn}: the records in between are missing (an increment left out, or the files out of order)`,
      );
    }
    if (h.last_lsn < prev.last_lsn) throw refuse(`ends at lsn ${h.last_lsn}, before the files before it (lsn ${prev.last_lsn}): the files are out of order`);
    if (!sameHistory(lineage(prev), lineage(h), h.after)) {
      throw refuse(
        `taken from another copy of this store (one restored from the same backup and written to since): its records after lsn ${h.after} do not continue these files`,
      );
    }
  }
}

/** A header's lineage; format 1 files have none: the store was never restored, as far as they know. */
function lineage(h: BackupHeader): Lineage {
  return h.lineage ?? [[h.store_id, 1]];
}

/**
 * The checks and bookkeeping after the last file: every live object ref has
 * its bytes; bytes no live ref names (an increment forgot them) are deleted,
 * as the source deleted them (I9); the store continues after the last
 * snapshot's LSN, as a new fork of its lineage; every record reads back
 * against its checksum.
 */
function finish(db: Database, blobs: BlobStore, last: BackupHeader): { records: number; tokens: number; cursors: number; objects: number } {
  const missing = db
    .query(
      "SELECT DISTINCT subject FROM tape t WHERE kind = 'object' AND forgotten_by IS NULL AND NOT EXISTS (SELECT 1 FROM objects o WHERE o.digest = t.subject) LIMIT 1",
    )
    .get() as { subject: string } | null;
  if (missing) throw damaged(`object ${missing.subject} is referenced but its bytes are not in the backup`);
  // A record's size is what stats, listings and a download's Content-Length say: it must be its bytes' size.
  const wrong = db
    .query(
      "SELECT t.lsn, t.subject, t.bytes, o.size FROM tape t JOIN objects o ON o.digest = t.subject WHERE t.kind = 'object' AND t.forgotten_by IS NULL AND t.bytes != o.size LIMIT 1",
    )
    .get() as { lsn: number; subject: string; bytes: number; size: number } | null;
  if (wrong) checkObjectSize({ lsn: wrong.lsn, object: wrong.subject, size: wrong.bytes }, wrong.size, "nothing was restored");
  db.transaction(() => {
    const unused = db
      .query("SELECT digest FROM objects o WHERE NOT EXISTS (SELECT 1 FROM tape t WHERE t.kind = 'object' AND t.subject = o.digest AND t.forgotten_by IS NULL)")
      .all() as { digest: string }[];
    for (const { digest } of unused) {
      blobs.delete(digest);
      db.query("DELETE FROM objects WHERE digest = ?").run(digest);
    }
    db.run("DELETE FROM object_gc");
    // A tenant's backup ends before the store's last LSN: the copy's own writes come after it, never in between.
    if (db.query("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'tape'").run(last.last_lsn).changes === 0 && last.last_lsn > 0) {
      db.query("INSERT INTO sqlite_sequence (name, seq) VALUES ('tape', ?)").run(last.last_lsn);
    }
    saveLineage(db, forkAt(lineage(last), last.last_lsn));
  })();
  // The restored rows carry checksums under the store's id: read every one back.
  const bad = damagedRows(db, 1);
  if (bad.length > 0) throw new ZeroDbError("corrupt", `record ${bad[0]} failed its checksum after the restore wrote it; nothing was restored`);
  // Records an increment's forget purged leave the WAL too (I9).
  checkpoint(db);
  const count = (sql: string) => (db.query(sql).get() as { n: number }).n;
  return {
    records: count("SELECT count(*) AS n FROM tape"),
    tokens: count("SELECT count(*) AS n FROM tokens"),
    cursors: count("SELECT count(*) AS n FROM capture_cursors"),
    objects: count("SELECT count(*) AS n FROM objects"),
  };
}

/** Removes temp dirs that restores into `target` left when they were killed (their process no longer runs). */
function removeDeadTemps(target: string): void {
  const re = new RegExp(`^\\.${basename(target).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.restore-(\\d+)-[0-9a-f]{12}$`);
  let names: string[];
  try {
    names = readdirSync(dirname(target));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = re.exec(name)?.[1];
    if (pid === undefined || alive(Number(pid))) continue;
    rmSync(join(dirname(target), name), { recursive: true, force: true });
  }
}

/** True while a process with this pid runs (EPERM: it runs, as someone else). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
