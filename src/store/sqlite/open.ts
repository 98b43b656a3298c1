/**
 * Opens the SQLite store of DESIGN.md section 4a. This folder is the only
 * importer of bun:sqlite (STYLE.md habit 1).
 */
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ZeroDbError } from "../../errors.ts";
import { fromSqliteError } from "./errors.ts";
import { guardPrivatePaths } from "../../util/private-path.ts";
import { loadIdentity } from "./identity.ts";
import { type MigrateOptions, migrate } from "./migrate.ts";
import { DB_FILE, dataDirPaths } from "./paths.ts";

/** How long a statement waits for another process's lock before `unavailable` (D5, section 4a: at least 5 s). */
export const BUSY_TIMEOUT_MS = 10_000;

export { DB_FILE, dataDirPaths } from "./paths.ts";

/** Opens (creating if needed) the store database of a data dir, migrating it to the newest schema. */
export function openDatabase(dataDir: string, opts: MigrateOptions = {}): Database {
  // Before anything is created: a data dir or store another user can read or write is refused (issue 14, item 3).
  guardPrivatePaths(dataDirPaths(dataDir));
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new ZeroDbError("unavailable", `cannot create the data dir ${dataDir}`, { cause: err });
  }
  // mkdir's mode passes through the umask, which is not trusted.
  chmodSync(dataDir, 0o700);
  if (!statSync(dataDir).isDirectory()) throw new ZeroDbError("invalid_input", `data dir ${dataDir} is not a directory`, { field: "data_dir" });
  const file = join(dataDir, DB_FILE);
  const isNew = !existsSync(file);
  let db: Database;
  try {
    db = new Database(file, { create: true, readwrite: true, strict: true });
  } catch (err) {
    throw openError(err, file);
  }
  try {
    if (isNew) chmodSync(file, 0o600);
    // Wait for other processes' locks rather than failing (D5).
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Switching a new file to WAL takes an exclusive lock without consulting
    // the busy handler, so processes creating one store at once retry here.
    const mode = whileBusy(() => (db.query("PRAGMA journal_mode = WAL").get() as { journal_mode: string }).journal_mode);
    if (mode !== "wal") throw new ZeroDbError("unavailable", `the store could not switch to WAL mode (it is in ${mode})`);
    // I2: every commit is fsynced before it is acknowledged.
    db.run("PRAGMA synchronous = FULL");
    db.run("PRAGMA foreign_keys = ON");
    // I9: deleted content is overwritten with zeros, not left in free space.
    db.run("PRAGMA secure_delete = ON");
    migrate(db, opts);
    // A damaged header or first pages show up here, not on the first write.
    db.query("SELECT count(*) FROM sqlite_schema").get();
    loadIdentity(db, dataDir);
    return db;
  } catch (err) {
    db.close();
    throw openError(err, file);
  }
}

/** Runs `fn`, retrying while SQLite answers SQLITE_BUSY, for up to the busy timeout. */
function whileBusy<T>(fn: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return fn();
    } catch (err) {
      const busy = String((err as { code?: unknown }).code ?? "").startsWith("SQLITE_BUSY");
      if (!busy || Date.now() >= deadline) throw err;
      Bun.sleepSync(5);
    }
  }
}

function openError(err: unknown, file: string): ZeroDbError {
  const e = fromSqliteError(err);
  if (e.code === "corrupt" && !(err instanceof ZeroDbError)) {
    return new ZeroDbError("corrupt", `the store file ${file} is damaged or not a zerodb store: run \`zerodb doctor\``, { cause: err });
  }
  if (e.code === "internal") return new ZeroDbError("unavailable", `cannot open the store at ${file}`, { cause: err });
  return e;
}
