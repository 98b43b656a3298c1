/**
 * Where opencode keeps its SQLite store and what sessions it holds
 * (HARNESSES.md "opencode"): `opencode.db` in its data directory
 * (`$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`; `$OPENCODE_DB`
 * names another; channel builds write `opencode-<channel>.db`), opened
 * read-only and briefly (opencode.ts reads a session's records), and the
 * `<database>#<session id>` addresses `capture sync` and `status` use.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { listDir } from "../util/fs.ts";

const DB_NAME = /^opencode(?:-[A-Za-z0-9._-]+)?\.db$/;

/** opencode's data directory: `$XDG_DATA_HOME/opencode` or `~/.local/share/opencode` (on every platform). */
export function opencodeDataDir(env: Record<string, string | undefined>, userHome: string): string {
  const xdg = env.XDG_DATA_HOME;
  return join(xdg !== undefined && xdg !== "" ? xdg : join(userHome, ".local", "share"), "opencode");
}

/** The databases opencode may have written: `$OPENCODE_DB` when set, and every `opencode*.db` in the data directory. */
export function findDatabases(env: Record<string, string | undefined>, userHome: string): string[] {
  const dir = opencodeDataDir(env, userHome);
  const out = listDir(dir)
    .filter((n) => DB_NAME.test(n))
    .sort()
    .map((n) => join(dir, n));
  const named = env.OPENCODE_DB;
  if (named !== undefined && named !== "" && named !== ":memory:") {
    const path = resolve(dir, named);
    if (!out.includes(path) && existsSync(path)) out.unshift(path);
  }
  return out;
}

/** A session's row: what capture needs of it. */
export interface SessionRow {
  id: string;
  parentId: string | null;
  directory: string;
  title: string;
}

/** Opens an opencode database read-only, failing fast when it is busy. */
export function openDatabase(path: string): Database {
  const db = new Database(path, { readonly: true });
  // A reader in WAL mode waits only on recovery or a truncating checkpoint: a moment, then give up and come back later.
  db.run("PRAGMA busy_timeout = 200");
  return db;
}

/** Runs `fn` over an opencode database opened read-only, closing it after. */
export function withDatabase<T>(path: string, fn: (db: Database) => T): T {
  const db = openDatabase(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const SESSION_COLUMNS = "id, parent_id AS parentId, directory, title";

/** Every session of a database, oldest first (none when the file is not opencode's). */
export function listSessions(db: Database): SessionRow[] {
  return db.query<SessionRow, []>(`SELECT ${SESSION_COLUMNS} FROM session ORDER BY time_created, id`).all();
}

/** One session, or undefined. */
export function sessionRow(db: Database, id: string): SessionRow | undefined {
  return db.query<SessionRow, [string]>(`SELECT ${SESSION_COLUMNS} FROM session WHERE id = ?`).get(id) ?? undefined;
}

/** The session at the top of a subagent chain (the one a person started). */
export function rootSession(db: Database, row: SessionRow): SessionRow {
  let at = row;
  const seen = new Set([at.id]);
  while (at.parentId !== null) {
    const up = sessionRow(db, at.parentId);
    if (up === undefined || seen.has(up.id)) break;
    seen.add(up.id);
    at = up;
  }
  return at;
}

/** A session and every subagent session below it, parents first. */
export function sessionFamily(db: Database, root: SessionRow): SessionRow[] {
  const out = [root];
  const children = db.query<SessionRow, [string]>(`SELECT ${SESSION_COLUMNS} FROM session WHERE parent_id = ? ORDER BY time_created, id`);
  for (let i = 0; i < out.length && out.length < 10_000; i++) out.push(...children.all(out[i]!.id).filter((c) => !out.some((o) => o.id === c.id)));
  return out;
}

/** The address `capture sync` and `capture status` use for one session: `<database>#<session id>`. */
export function sessionAddress(dbPath: string, sessionId: string): string {
  return `${dbPath}#${sessionId}`;
}

/** The database and session id of an address, or undefined when it is not one. */
export function parseAddress(address: string): { db: string; session: string } | undefined {
  // An empty session id stands for a database whose sessions could not be listed (sync then says so).
  const m = /^(.*\.db)#((?:ses_[A-Za-z0-9]{1,100})?)$/.exec(address);
  return m ? { db: m[1]!, session: m[2]! } : undefined;
}

/** The session of an address with its root (the session a person started), or undefined when the database or session is gone. */
export function addressedSession(address: { db: string; session: string }): { row: SessionRow; root: SessionRow } | undefined {
  if (!existsSync(address.db)) return undefined;
  return withDatabase(address.db, (db) => {
    const row = sessionRow(db, address.session);
    return row ? { row, root: rootSession(db, row) } : undefined;
  });
}

/** Every session of every opencode database, as `<database>#<session id>`, parents before their subagents (`<database>#` for one that cannot be read now). */
export function findSessions(env: Record<string, string | undefined>, userHome: string): string[] {
  const out: string[] = [];
  for (const path of findDatabases(env, userHome)) {
    try {
      for (const s of withDatabase(path, listSessions)) out.push(sessionAddress(path, s.id));
    } catch {
      // Busy right now, or not opencode's: `capture sync` warns of it and reads it on a later run.
      out.push(sessionAddress(path, ""));
    }
  }
  return out;
}
