/** The SQLite engine behind the Store and Memory interfaces. */
import type { Database } from "bun:sqlite";
import { ZeroDbError, invalid, toZeroDbError } from "../../errors.ts";
import { checkTenant, isPlainFactGet } from "../../schema/common.ts";
import type * as Ops from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { searchPhrasings } from "../../search/fuse.ts";
import { checkObjectMeta, redactAppend, redactFact, redactLink, withRedacted } from "../redact-input.ts";
import type { CheckResult, Memory, Store, WorkTrace } from "../types.ts";
import { sqliteCapture } from "./capture.ts";
import { activity } from "./activity.ts";
import { factGet, factHistory, factList, factSet } from "./facts.ts";
import { checkpoint, finishPendingPurge, forget } from "./forget.ts";
import { linkAdd, linkList } from "./links.ts";
import { backupChunks, backupStart } from "./backup.ts";
import { openObjects, type ObjectsOptions } from "./objects.ts";
import type { MigrateOptions } from "./migrate.ts";
import { openDatabase } from "./open.ts";
import { search } from "./search.ts";
import { stats } from "./stats.ts";
import { damagedRows } from "./verify.ts";
import { sqliteTokens } from "./tokens.ts";
import { traceDatabase } from "./trace.ts";
import { exportRows, importRecords } from "./transfer.ts";
import { append, read, sessions } from "./turns.ts";
import { atPoint, boundOf } from "../as-of.ts";
import { asOfLookup, factGetAt, factListAt, sessionsAt } from "./as-of.ts";
import { diffSpan } from "../diff.ts";
import { diff } from "./diff.ts";

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

  /**
   * Runs `fn` with the operations' input schemas: at once once they are
   * loaded, else after loading them. Opening a store builds none of them, so
   * a capture hook (its batches have a schema of their own) never pays for them.
   */
  const withOps = <T>(fn: (In: typeof Ops) => T | Promise<T>): T | Promise<T> => {
    if (opsModule) return fn(opsModule);
    return import("../../schema/ops.ts").then((m) => {
      opsModule = m;
      if (closed) throw new ZeroDbError("unavailable", "the store is closed");
      return fn(m);
    });
  };

  /** Runs an operation, mapping every failure to a ZeroDbError. */
  const run = async <T>(fn: () => T | Promise<T>): Promise<T> => {
    if (closed) throw new ZeroDbError("unavailable", "the store is closed");
    try {
      return await fn();
    } catch (err) {
      throw toZeroDbError(err);
    }
  };

  const memory = (tenant: string): Memory => {
    checkTenant(tenant);
    // as_of resolved to an LSN, or left out for now (DESIGN.md section 17).
    const at = <T extends { as_of?: number | string }>(input: T) => atPoint(input, asOfLookup(db, tenant));
    return {
      tenant,
      append: (i) =>
        run(() =>
          withOps((In) => {
            const r = redactAppend(parseInput(In.AppendInput, i), redactOn);
            // Parsed again: a marker may be longer than the secret it replaced, and the limits still hold.
            return withRedacted(append(db, tenant, parseInput(In.AppendInput, r.input)), r.redacted);
          }),
        ),
      read: (i) => run(() => withOps(async (In) => read(db, tenant, await at(parseInput(In.ReadInput, i))))),
      sessions: (i) =>
        run(() =>
          withOps(async (In) => {
            const input = await at(parseInput(In.SessionsInput, i ?? {}));
            const upto = boundOf(input);
            return upto === undefined ? sessions(db, tenant, input) : sessionsAt(db, tenant, input, upto);
          }),
        ),
      search: (i) =>
        run(() =>
          withOps(async (In) => {
            const input = await at(parseInput(In.SearchInput, i));
            // Every phrasing reads one snapshot (I4): the engine's own transaction nests in this one as a savepoint.
            // One phrasing is one search, in its own transaction already.
            if (input.queries === undefined) return search(db, tenant, input);
            return db.transaction(() => searchPhrasings(input, (p) => search(db, tenant, p)))();
          }),
        ),
      factSet: (i) =>
        run(() =>
          withOps((In) => {
            const r = redactFact(parseInput(In.FactSetInput, i), redactOn);
            return withRedacted(factSet(db, tenant, parseInput(In.FactSetInput, r.input)), r.redacted);
          }),
        ),
      factGet: (i) =>
        run(() =>
          isPlainFactGet(i)
            ? factGet(db, tenant, i)
            : withOps(async (In) => {
                const input = await at(parseInput(In.FactGetInput, i));
                const upto = boundOf(input);
                return upto === undefined ? factGet(db, tenant, input) : factGetAt(db, tenant, input, upto);
              }),
        ),
      factList: (i) =>
        run(() =>
          withOps(async (In) => {
            const input = await at(parseInput(In.FactListInput, i ?? {}));
            const upto = boundOf(input);
            return upto === undefined ? factList(db, tenant, input) : factListAt(db, tenant, input, upto);
          }),
        ),
      forget: (i) =>
        run(() =>
          withOps((In) => {
            const outcome = forget(db, tenant, parseInput(In.ForgetInput, i));
            if (outcome.digests.length > 0) for (const h of hooks) h.afterForget?.(outcome.digests);
            return outcome.result;
          }),
        ),
      // A name holding a secret is refused before a byte of the body is read.
      objectPut: (body, meta) =>
        run(async () => {
          const checked = await withOps((In) => checkObjectMeta(parseInput(In.ObjectPutMeta, meta ?? {}), redactOn));
          return objects.put(tenant, body, checked);
        }),
      objectGet: (i) => run(() => withOps((In) => objects.get(tenant, parseInput(In.ObjectGetInput, i)))),
      objectList: (i) => run(() => withOps((In) => objects.list(tenant, parseInput(In.ObjectListInput, i ?? {})))),
      linkAdd: (i) =>
        run(() =>
          withOps((In) => {
            const r = redactLink(parseInput(In.LinkAddInput, i), redactOn);
            return withRedacted(linkAdd(db, tenant, parseInput(In.LinkAddInput, r.input)), r.redacted);
          }),
        ),
      linkList: (i) => run(() => withOps((In) => linkList(db, tenant, parseInput(In.LinkListInput, i ?? {})))),
      factHistory: (i) => run(() => withOps((In) => factHistory(db, tenant, parseInput(In.FactHistoryInput, i)))),
      activity: (i) => run(() => withOps((In) => activity(db, tenant, parseInput(In.ActivityInput, i ?? {})))),
      stats: (i) =>
        run(() =>
          withOps((In) => {
            parseInput(In.StatsInput, i ?? {});
            return stats(db, tenant);
          }),
        ),
      diff: (i) =>
        run(() =>
          withOps(async (In) => {
            const input = parseInput(In.DiffInput, i);
            return diff(db, tenant, input, await diffSpan(input, asOfLookup(db, tenant)));
          }),
        ),
    };
  };

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
      const start = backupStart(db, opts);
      const counts = { records: 0, tokens: 0, cursors: 0, objects: 0, after: start.after, last_lsn: 0 };
      return { chunks: backupChunks(db, objects.blobs, { ...start, counts }), counts };
    },
    hook: (h) => void hooks.push(h),
    async *exportTape(opts = {}) {
      if (opts.tenant !== undefined) checkTenant(opts.tenant);
      if (opts.after !== undefined && !(Number.isSafeInteger(opts.after) && opts.after >= 0)) throw invalid("after", "must be a whole number (an LSN)");
      try {
        yield* exportRows(db, opts);
      } catch (err) {
        throw toZeroDbError(err);
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
        throw toZeroDbError(err);
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
          const e = toZeroDbError(err);
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
