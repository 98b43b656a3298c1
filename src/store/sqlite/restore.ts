/**
 * `zerodb restore`: rebuilds a store from a backup file (issue 20, DESIGN.md
 * 15) into a temp dir beside the target, verifying every record line's
 * checksum, every object's digest and the trailer's digest of the whole file,
 * and only then renames the temp dir to the target. A damaged or truncated
 * backup is refused naming the record or object; a failure (or kill -9)
 * never leaves a half-restored store at the target.
 */
import type { Database } from "bun:sqlite";
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ZeroDbError } from "../../errors.ts";
import { createFsBlobStore } from "../../objects/fs-store.ts";
import { fsyncDir } from "../../util/atomic.ts";
import {
  BACKUP_MAGIC,
  BACKUP_VERSION,
  type BackupHeader,
  type BackupReader,
  type BackupTrailer,
  damaged,
  openBackupReader,
  recordSum,
} from "./backup-format.ts";
import { openDatabase } from "./open.ts";
import { importRecords } from "./transfer.ts";
import { damagedRows } from "./verify.ts";

import type { RestoreResult } from "../open.ts";

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

/** Restores the backup `file` into `dataDir`, which must be empty or not exist. */
export async function restoreBackup(file: string, dataDir: string): Promise<RestoreResult> {
  const target = resolve(dataDir);
  checkRestoreTarget(target);
  if (!isDir(dirname(target))) throw new ZeroDbError("invalid_input", `data_dir: the directory ${dirname(target)} does not exist`, { field: "data_dir" });
  if (isDir(file)) throw new ZeroDbError("invalid_input", `file: ${file} is a directory, not a backup`, { field: "file" });
  let reader: BackupReader;
  try {
    reader = openBackupReader(file);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new ZeroDbError(code === "ENOENT" ? "not_found" : "invalid_input", `cannot read ${file} (${code ?? "error"})`, { field: "file" });
  }
  removeDeadTemps(target);
  const rand = Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex");
  const temp = join(dirname(target), `.${basename(target)}.restore-${process.pid}-${rand}`);
  let db: Database | undefined;
  try {
    const header = readHeader(reader);
    mkdirSync(temp, { mode: 0o700 });
    db = openDatabase(temp);
    const result = await rebuild(db, reader, temp);
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
    return { ...result, last_lsn: header.last_lsn, data_dir: target, from_store: header.store_id, tenant: header.tenant };
  } catch (err) {
    db?.close();
    rmSync(temp, { recursive: true, force: true });
    throw err;
  } finally {
    reader.close();
  }
}

function readHeader(reader: BackupReader): BackupHeader {
  const first = reader.line();
  const prefix = `${BACKUP_MAGIC} `;
  if (first === undefined || !first.startsWith(prefix))
    throw new ZeroDbError("invalid_input", "file: not a zerodb backup (no ZERODB-BACKUP header)", { field: "file" });
  const [version, ...rest] = first.slice(prefix.length).split(" ");
  if (Number(version) !== BACKUP_VERSION) {
    throw new ZeroDbError("invalid_input", `file: backup format version ${version}; this zerodb reads version ${BACKUP_VERSION}`, { field: "file" });
  }
  try {
    const h = JSON.parse(rest.join(" ")) as BackupHeader;
    if (typeof h.store_id !== "string" || typeof h.last_lsn !== "number") throw new Error("fields");
    return h;
  } catch {
    throw damaged("the header line");
  }
}

/** Records, then objects, then the trailer; every check before the caller renames. */
async function rebuild(db: Database, reader: BackupReader, temp: string): Promise<{ records: number; objects: number }> {
  let pending: string | undefined;
  let line = 1;
  let records = 0;
  function* recordLines(): Generator<unknown> {
    for (let l = reader.line(); l !== undefined; l = reader.line()) {
      line++;
      if (!l.startsWith("R ")) {
        pending = l;
        return;
      }
      const sum = l.slice(2, 34);
      const json = l.slice(35);
      if (recordSum(json) !== sum) throw damaged(`${recordName(json, line)} fails its checksum`);
      records++;
      yield JSON.parse(json);
    }
  }
  const wrap = async function* () {
    yield* recordLines();
  };
  await importRecords(db, wrap());
  const blobs = createFsBlobStore(join(temp, "objects"));
  const seen = new Set<string>();
  while (pending?.startsWith("O ")) {
    const m = /^O (sha256:[0-9a-f]{64}) (\d{1,16})$/.exec(pending);
    if (!m) throw damaged(`line ${line}: a malformed object frame`);
    const digest = m[1]!;
    const size = Number(m[2]);
    if (seen.has(digest)) throw damaged(`object ${digest} appears twice`);
    seen.add(digest);
    const bytes = async function* () {
      yield* reader.bytes(size, `object ${digest}`);
    };
    const staged = await blobs.stage(bytes(), { maxBytes: Number.MAX_SAFE_INTEGER });
    try {
      if (staged.digest !== digest) throw damaged(`object ${digest}: its bytes hash to ${staged.digest}`);
      const [nl] = [...reader.bytes(1, `object ${digest}`)];
      if (nl?.[0] !== 10) throw damaged(`object ${digest}: its frame does not end where its size says`);
      staged.place();
      db.query("INSERT INTO objects (digest, size, created) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING").run(digest, size, Date.now());
    } finally {
      staged.discard();
    }
    pending = reader.line();
    line++;
  }
  const trailer = readTrailer(pending, line);
  const whole = reader.digestBeforeTrailer();
  if (!reader.atEnd()) throw damaged("bytes follow the END trailer");
  if (trailer.records !== records || trailer.objects !== seen.size) {
    throw damaged(`the trailer counts ${trailer.records} records and ${trailer.objects} objects, the file holds ${records} and ${seen.size}`);
  }
  if (trailer.sha256 !== whole) throw damaged("the file's digest does not match its trailer (bytes were changed)");
  const missing = db
    .query(
      "SELECT DISTINCT subject FROM tape t WHERE kind = 'object' AND forgotten_by IS NULL AND NOT EXISTS (SELECT 1 FROM objects o WHERE o.digest = t.subject) LIMIT 1",
    )
    .get() as { subject: string } | null;
  if (missing) throw damaged(`object ${missing.subject} is referenced but its bytes are not in the backup`);
  // The restored rows carry checksums under the new store's id: read every one back.
  const bad = damagedRows(db, 1);
  if (bad.length > 0) throw new ZeroDbError("corrupt", `record ${bad[0]} failed its checksum after the restore wrote it; nothing was restored`);
  return { records, objects: seen.size };
}

function readTrailer(pending: string | undefined, line: number): BackupTrailer {
  if (pending === undefined) throw damaged("the file ends before its END trailer (truncated)");
  if (!pending.startsWith("END ")) throw damaged(`line ${line}: unexpected ${JSON.stringify(pending.slice(0, 40))}`);
  try {
    const t = JSON.parse(pending.slice(4)) as BackupTrailer;
    if (typeof t.records !== "number" || typeof t.objects !== "number" || typeof t.sha256 !== "string") throw new Error("fields");
    return t;
  } catch {
    throw damaged("the END trailer is malformed (truncated?)");
  }
}

/** A record's name for an error: its LSN when the JSON still parses, else its line. */
function recordName(json: string, line: number): string {
  try {
    const lsn = (JSON.parse(json) as { lsn?: unknown }).lsn;
    if (typeof lsn === "number") return `record lsn ${lsn} (line ${line})`;
  } catch {}
  return `the record on line ${line}`;
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
