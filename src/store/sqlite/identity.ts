/**
 * The store's identity: a random id kept both in `zerodb.id` beside the
 * database and in its `meta` table, and mixed into every record checksum.
 * SQLite replays any valid WAL it finds, even one copied from another store;
 * records from another store then fail their checksums instead of being
 * served as this store's data, and a swapped database file is refused.
 */
import type { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ZeroDbError } from "../../errors.ts";
import { writeFileAtomic } from "../../util/atomic.ts";

/** The identity file's name inside the data dir. */
export const ID_FILE = "zerodb.id";

const ids = new WeakMap<Database, string>();

/** The id of the store a database handle belongs to. */
export function storeIdOf(db: Database): string {
  const id = ids.get(db);
  if (!id) throw new ZeroDbError("internal", "store identity not loaded");
  return id;
}

function readIdFile(dataDir: string): string | undefined {
  try {
    const text = readFileSync(join(dataDir, ID_FILE), "utf8").trim();
    if (!/^[0-9a-f]{32}$/.test(text)) throw new ZeroDbError("corrupt", `${join(dataDir, ID_FILE)} is damaged: run \`zerodb doctor\``);
    return text;
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return undefined;
    throw err;
  }
}

/** Writes the id file unless another process won the race; returns the id that stands. */
function writeIdFile(dataDir: string, id: string): string {
  try {
    writeFileAtomic(join(dataDir, ID_FILE), `${id}\n`, { mode: 0o600, exclusive: true });
    return id;
  } catch (err) {
    if ((err as { code?: string }).code !== "EEXIST") throw err;
    return readIdFile(dataDir)!;
  }
}

/** Loads (or, for a new store, creates) the identity and checks the database matches it. */
export function loadIdentity(db: Database, dataDir: string): string {
  const inDb = (db.query("SELECT value FROM meta WHERE key = 'store_id'").get() as { value: string } | null)?.value;
  let id = readIdFile(dataDir);
  if (!id) {
    // A new store, or an id file lost: the database's own record is the truth.
    id = writeIdFile(dataDir, inDb ?? Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex"));
  }
  if (!inDb) {
    db.query("INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', ?)").run(id);
    const now = (db.query("SELECT value FROM meta WHERE key = 'store_id'").get() as { value: string }).value;
    if (now !== id) throw mismatch(dataDir);
  } else if (inDb !== id) {
    throw mismatch(dataDir);
  }
  ids.set(db, id);
  return id;
}

function mismatch(dataDir: string): ZeroDbError {
  return new ZeroDbError(
    "corrupt",
    `the store in ${dataDir} does not match its ${ID_FILE} (a database, WAL or id file from another store?): run \`zerodb doctor\``,
  );
}
