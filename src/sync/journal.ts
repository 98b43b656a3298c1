/**
 * Sync's journal (DESIGN.md 16): a small SQLite file beside the store,
 * `<data dir>/zerodb-sync.sqlite`, holding which server the store syncs
 * with, the two cursors (pushed up to which local LSN, pulled up to which
 * server LSN), and for every replicated record its identity (origin store,
 * origin LSN) with its LSN on the server and in this store. It holds no
 * content: a forget has nothing to purge here (I9).
 *
 * It is a file of its own, not tables of the store, because the store's
 * writes go through the Memory interface, each in its own transaction: the
 * journal is written after the records it covers are acknowledged (durable,
 * I2). A kill between the two is repaired by the next sync, which sends the
 * same records again under the same idempotency keys (I3): the store answers
 * `duplicate` with the LSN it kept, and the journal learns it then.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { ZeroDbError } from "../errors.ts";

/** The journal's file name inside the data dir. */
export const JOURNAL_FILE = "zerodb-sync.sqlite";
/** The lock's file name: held by the sync that runs, released by the OS when it dies. */
export const LOCK_FILE = "zerodb-sync.lock";

/** A record's identity on every replica: the store that first wrote it and its LSN there. */
export interface Origin {
  store: string;
  lsn: number;
}

/** One replicated record's LSNs; null where it is not (yet) held. */
export interface Mapping extends Origin {
  server: number | null;
  local: number | null;
}

/** What the journal remembers of the server, checked before every sync writes anything. */
export interface ServerBinding {
  url: string;
  tenant: string;
  local_tenant: string;
}

/** The journal's operations. */
export interface Journal {
  binding(): ServerBinding | undefined;
  bind(b: ServerBinding): void;
  /** Everything up to this local LSN was pushed (or needs no push). */
  pushed(): number;
  /** Everything up to this server LSN was pulled. */
  pulled(): number;
  get(key: string): string | undefined;
  byLocal(lsn: number): Mapping | undefined;
  byServer(lsn: number): Mapping | undefined;
  byOrigin(o: Origin): Mapping | undefined;
  /** Records mappings and moves cursors in one transaction (the cursor never gets ahead of what it covers). */
  commit(opts: { maps?: Mapping[]; pushed?: number; pulled?: number; state?: Record<string, string> }): void;
  /**
   * Moves the pulled cursor over the server LSNs right after it that the
   * journal maps already (what this store just pushed, when no other
   * machine wrote in between), so the next pull does not fetch them back.
   * The new cursor.
   */
  skipKnown(): number;
  close(): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rec (
  origin TEXT NOT NULL, origin_lsn INTEGER NOT NULL,
  server_lsn INTEGER, local_lsn INTEGER,
  PRIMARY KEY (origin, origin_lsn)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS rec_server ON rec (server_lsn) WHERE server_lsn IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS rec_local ON rec (local_lsn) WHERE local_lsn IS NOT NULL;
`;

interface Row {
  origin: string;
  origin_lsn: number;
  server_lsn: number | null;
  local_lsn: number | null;
}

const toMapping = (r: Row | null): Mapping | undefined => (r ? { store: r.origin, lsn: r.origin_lsn, server: r.server_lsn, local: r.local_lsn } : undefined);

/** Opens (creating) the journal of a data dir. */
export function openJournal(dataDir: string): Journal {
  const db = new Database(join(dataDir, JOURNAL_FILE), { create: true, strict: true });
  db.run("PRAGMA busy_timeout = 5000");
  db.run("PRAGMA journal_mode = WAL");
  // A cursor written is a cursor kept (I2), like the store's own writes.
  db.run("PRAGMA synchronous = FULL");
  db.run(SCHEMA);
  const getState = db.query("SELECT value FROM state WHERE key = ?");
  const setState = db.query("INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  const cols = "SELECT origin, origin_lsn, server_lsn, local_lsn FROM rec";
  const qLocal = db.query(`${cols} WHERE local_lsn = ?`);
  const qServer = db.query(`${cols} WHERE server_lsn = ?`);
  const qOrigin = db.query(`${cols} WHERE origin = ? AND origin_lsn = ?`);
  // A later sighting fills in what an earlier one did not know (the server LSN of a record pushed, then pulled).
  const upsert = db.query(
    `INSERT INTO rec (origin, origin_lsn, server_lsn, local_lsn) VALUES (?, ?, ?, ?)
     ON CONFLICT (origin, origin_lsn) DO UPDATE SET server_lsn = coalesce(excluded.server_lsn, server_lsn), local_lsn = coalesce(excluded.local_lsn, local_lsn)`,
  );
  const nextServer = db.query("SELECT server_lsn FROM rec WHERE server_lsn > ? ORDER BY server_lsn LIMIT 1000");
  const get = (key: string) => (getState.get(key) as { value: string } | null)?.value;
  const num = (key: string) => Number(get(key) ?? 0);
  const tx = db.transaction((opts: Parameters<Journal["commit"]>[0]) => {
    for (const m of opts.maps ?? []) upsert.run(m.store, m.lsn, m.server, m.local);
    if (opts.pushed !== undefined && opts.pushed > num("pushed")) setState.run("pushed", String(opts.pushed));
    if (opts.pulled !== undefined && opts.pulled > num("pulled")) setState.run("pulled", String(opts.pulled));
    for (const [k, v] of Object.entries(opts.state ?? {})) setState.run(k, v);
  });
  return {
    binding: () => {
      const raw = get("server");
      return raw === undefined ? undefined : (JSON.parse(raw) as ServerBinding);
    },
    bind: (b) => void setState.run("server", JSON.stringify(b)),
    pushed: () => num("pushed"),
    pulled: () => num("pulled"),
    get,
    byLocal: (lsn) => toMapping(qLocal.get(lsn) as Row | null),
    byServer: (lsn) => toMapping(qServer.get(lsn) as Row | null),
    byOrigin: (o) => toMapping(qOrigin.get(o.store, o.lsn) as Row | null),
    commit: (opts) => {
      try {
        tx(opts);
      } catch (err) {
        throw new ZeroDbError("internal", "the sync journal could not be written", { cause: err });
      }
    },
    skipKnown: () => {
      let through = num("pulled");
      for (;;) {
        const next = (nextServer.all(through) as { server_lsn: number }[]).map((r) => r.server_lsn);
        let i = 0;
        while (i < next.length && next[i] === through + 1) through = next[i++]!;
        if (i < 1000) break;
      }
      if (through > num("pulled")) setState.run("pulled", String(through));
      return through;
    },
    close: () => db.close(),
  };
}

const LOCK_BUSY = "another `zerodb sync` of this store is running; try again when it has finished";

/** Whether an error is takeSyncLock's: another sync of the store holds the lock. */
export function isLockBusy(err: unknown): boolean {
  return err instanceof ZeroDbError && err.code === "conflict" && err.message === LOCK_BUSY;
}

/**
 * Takes the store's sync lock, or says another sync holds it. An exclusive
 * transaction on a file of its own: the OS drops it when its process dies,
 * so a `kill -9` never leaves a stale lock behind.
 */
export function takeSyncLock(dataDir: string): { release(): void } {
  const db = new Database(join(dataDir, LOCK_FILE), { create: true });
  db.run("PRAGMA busy_timeout = 0");
  try {
    db.run("BEGIN EXCLUSIVE");
  } catch (err) {
    db.close();
    throw new ZeroDbError("conflict", LOCK_BUSY, { cause: err });
  }
  return {
    release: () => {
      try {
        db.run("ROLLBACK");
      } finally {
        db.close();
      }
    },
  };
}
