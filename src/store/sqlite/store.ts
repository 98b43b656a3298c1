/** The SQLite engine behind the Store and Memory interfaces. */
import type { Database } from "bun:sqlite";
import { ZeroDbError, invalid } from "../../errors.ts";
import { checkTenant } from "../../schema/tenant.ts";
import type * as Ops from "../../schema/ops.ts";
import { type EngineOps, createMemory } from "../memory.ts";
import type { CheckResult, Memory, Store, WorkTrace } from "../types.ts";
import { sqliteCapture } from "./capture-cursors.ts";
import { activity } from "./activity.ts";
import { factGet, factHistory, factList, factSet } from "./facts.ts";
import { checkpoint, finishPendingPurge, forget } from "./forget/forget.ts";
import { linkAdd, linkList } from "./links.ts";
import { backupChunks, backupStart } from "./backup/backup.ts";
import { openObjects, type ObjectsOptions } from "./objects/objects.ts";
import type { MigrateOptions } from "./migrate.ts";
import { openDatabase } from "./open.ts";
import { search } from "./search/search.ts";
import { stats } from "./stats.ts";
import { damagedRows } from "./verify.ts";
import { fromSqliteError, mapped } from "./errors.ts";
import { sqliteTokens } from "./tokens.ts";
import { traceDatabase } from "./trace.ts";
import { exportRows, importRecords } from "./transfer.ts";
import { append, read, sessions } from "./turns.ts";
import { asOfLookup, factGetAt, factListAt, sessionsAt } from "./history/as-of.ts";
import { diff } from "./history/diff.ts";

/** Hooks other parts of the store (objects) add to the engine. */
export interface SqliteStoreHooks {
  /** Called after a forget commits, with the digests whose refs it hid. */
  afterForget?: (digests: string[]) => void;
}

/** The SQLite store of a data dir, plus the raw handle for the parts built on it. */
export interface SqliteStore extends Store {
  /** The database, for modules of this engine (objects, tokens) only. */
  readonly db: Database;
  /** Adds hooks (the objects layer registers its blob collection here). */
  hook(hooks: SqliteStoreHooks): void;
}

/** Options of a store; the defaults suit tests and tools. */
export interface SqliteStoreOptions extends ObjectsOptions, MigrateOptions {
  /** Take secrets out of every write (DESIGN.md 7.2); false only by the user's config. Default true. */
  redact?: boolean;
}

/** The operations' input schemas, once an operation has loaded them. */
let opsModule: typeof Ops | undefined;

/** Opens the store of a data dir. */
export function openSqliteStore(dataDir: string, opts: SqliteStoreOptions = {}): SqliteStore {
  const db = openDatabase(dataDir, { onProgress: opts.onProgress });
  // A purge an earlier process could not finish (readers held the WAL) is finished first (I9).
  finishPendingPurge(db);
  const objects = openObjects(db, dataDir, opts);
  // Blobs whose last ref a forget hid are deleted before the forget returns (I9).
  const hooks: SqliteStoreHooks[] = [{ afterForget: () => objects.collect() }];
  let closed = false;
  let trace: WorkTrace | undefined;
  const redactOn = opts.redact ?? true;

  /** The operations' input schemas: at once once loaded, else after loading them (opening a store builds none). */
  const schemas = (): typeof Ops | Promise<typeof Ops> =>
    opsModule ??
    import("../../schema/ops.ts").then((m) => {
      opsModule = m;
      if (closed) throw new ZeroDbError("unavailable", "the store is closed");
      return m;
    });

  /** Runs an operation, mapping every failure to a ZeroDbError. */
  const run = async <T>(fn: () => T | Promise<T>): Promise<T> => {
    if (closed) throw new ZeroDbError("unavailable", "the store is closed");
    try {
      return await fn();
    } catch (err) {
      throw fromSqliteError(err);
    }
  };

  /** This engine's operations for a tenant (src/store/memory.ts does the rest, as for every engine). */
  const engineOps = (tenant: string): EngineOps => ({
    append: (input) => append(db, tenant, input),
    read: (input) => read(db, tenant, input),
    sessions: (input, upto) => (upto === undefined ? sessions(db, tenant, input) : sessionsAt(db, tenant, input, upto)),
    search: (input) => search(db, tenant, input),
    // Every phrasing reads one snapshot (I4): each search's own transaction nests in this one as a savepoint.
    snapshot: (fn) => db.transaction(fn)(),
    factSet: (input) => factSet(db, tenant, input),
    factGet: (input, upto) => (upto === undefined ? factGet(db, tenant, input) : factGetAt(db, tenant, input, upto)),
    factList: (input, upto) => (upto === undefined ? factList(db, tenant, input) : factListAt(db, tenant, input, upto)),
    forget: (input) => {
      const outcome = forget(db, tenant, input);
      if (outcome.digests.length > 0) for (const h of hooks) h.afterForget?.(outcome.digests);
      return outcome.result;
    },
    objectPut: (body, meta) => objects.put(tenant, body, meta),
    objectGet: (input) => objects.get(tenant, input),
    objectList: (input) => objects.list(tenant, input),
    linkAdd: (input) => linkAdd(db, tenant, input),
    linkList: (input) => linkList(db, tenant, input),
    factHistory: (input) => factHistory(db, tenant, input),
    activity: (input) => activity(db, tenant, input),
    stats: () => stats(db, tenant),
    diff: (input, span) => diff(db, tenant, input, span),
    asOf: asOfLookup(db, tenant),
  });

  const memory = (tenant: string): Memory => createMemory(checkTenant(tenant), engineOps(tenant), { write: run, read: run, schemas, redact: redactOn });

  return {
    dataDir,
    db,
    memory,
    tokens: sqliteTokens(db, { run }),
    capture: (tenant) => sqliteCapture(db, checkTenant(tenant), run),
    // Counting shadows the handle's methods in place, so it is done once and shared.
    trace: () => (trace ??= traceDatabase(db)),
    backup: (opts) => {
      if (closed) throw new ZeroDbError("unavailable", "the store is closed");
      if (opts.tenant !== undefined) checkTenant(opts.tenant);
      // An increment's start, checked before the first chunk: a bad --since writes no file.
      let start: ReturnType<typeof backupStart>;
      try {
        start = backupStart(db, opts);
      } catch (err) {
        throw fromSqliteError(err);
      }
      const counts = { records: 0, tokens: 0, cursors: 0, objects: 0, after: start.after, last_lsn: 0 };
      return { chunks: mapped(backupChunks(db, objects.blobs, { ...start, counts })), counts };
    },
    hook: (h) => void hooks.push(h),
    async *exportTape(opts = {}) {
      if (opts.tenant !== undefined) checkTenant(opts.tenant);
      if (opts.after !== undefined && !(Number.isSafeInteger(opts.after) && opts.after >= 0)) throw invalid("after", "must be a whole number (an LSN)");
      try {
        yield* exportRows(db, opts);
      } catch (err) {
        throw fromSqliteError(err);
      }
    },
    importTape: async (records) => {
      try {
        const result = await importRecords(db, records);
        // An increment's forgets purged rows: out of the WAL, and their blobs collected (I9).
        if ((result.purged ?? 0) > 0) {
          checkpoint(db);
          objects.collect();
        }
        return result;
      } catch (err) {
        throw fromSqliteError(err);
      }
    },
    check: (opts = {}) =>
      run((): CheckResult => {
        const pragma = opts.full ? "integrity_check" : "quick_check";
        try {
          const rows = db.query(`PRAGMA ${pragma}`).all() as Record<string, string>[];
          const problems = rows.map((r) => Object.values(r)[0]).filter((v) => v !== "ok");
          if (problems.length > 0) return { ok: false, detail: `${pragma}: ${problems.slice(0, 3).join("; ")}` };
          // quick_check sees structure, not payload: bytes overwritten inside a record pass it.
          const damaged = damagedRows(db);
          if (damaged.length > 0) return { ok: false, detail: `records failing their checksum: ${damaged.join(", ")}` };
          if (opts.full) db.run("INSERT INTO words (words, rank) VALUES ('integrity-check', 1)");
        } catch (err) {
          const e = fromSqliteError(err);
          if (e.code === "corrupt") return { ok: false, detail: `${pragma}: the store file is damaged (${(err as Error).message})` };
          throw e;
        }
        return { ok: true, detail: `${pragma} and record checksums: ok` };
      }),
    close: () => {
      if (closed) return;
      closed = true;
      try {
        finishPendingPurge(db);
      } catch {}
      db.close();
    },
  };
}
