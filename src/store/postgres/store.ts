/**
 * The PostgreSQL engine behind the Store and Memory interfaces (DESIGN.md 12),
 * through Bun's built-in SQL client: the only importer of it. Several `serve`
 * processes may share one database; every write takes the LSN lock
 * (_tape.ts), so LSNs increase in commit order (I1, I4).
 */
import { asOfLookup, factGetAt, factListAt, sessionsAt } from "./as-of.ts";
import { diff } from "./diff.ts";
import { type EngineOps, createMemory } from "../memory.ts";
import { SQL } from "bun";
import { ZeroDbError } from "../../errors.ts";
import { checkTenant } from "../../schema/common.ts";
import * as In from "../../schema/ops.ts";
import type { TapeRecord } from "../../schema/tape.ts";
import type { Memory, Store } from "../types.ts";
import { pgCapture } from "./capture-cursors.ts";
import { checkDatabase } from "./check.ts";
import { connectionLost, fromPgError } from "./errors.ts";
import { factGet, factList, factSet, linkAdd } from "./facts.ts";
import { forget } from "./forget.ts";
import { activity, factHistory, linkList } from "./history.ts";
import { migrate } from "./migrate.ts";
import { adoptLocalBlobs, pgObjects } from "./objects.ts";
import { reapIdleUploads } from "./blobs.ts";
import { search } from "./search.ts";
import { stats } from "./stats.ts";
import { pgTokens } from "./tokens.ts";
import { exportRows, importRecords } from "./transfer.ts";
import { importWithBlobs } from "./restore.ts";
import { append, read, sessions } from "./turns.ts";
import { redactUrl } from "./url.ts";

/** Options of a PostgreSQL store. */
export interface PostgresStoreOptions {
  /** postgres:// URL of the database. */
  url: string;
  /** The local data dir, where a schema-1 `serve` kept object bytes (objects.ts adopts them into the database). */
  dataDir: string;
  /** Largest object accepted (config max_object_bytes). */
  maxObjectBytes?: number;
  /** Take secrets out of every write (DESIGN.md 7.2). Default true. */
  redact?: boolean;
  /** Connections in this process's pool. */
  maxConnections?: number;
  /** Progress of long migrations: what, how far, out of how many. */
  onProgress?: (what: string, done: number, total: number) => void;
}

/** Opens (migrating if needed) the store in a PostgreSQL database. */
export async function openPostgresStore(opts: PostgresStoreOptions): Promise<Store> {
  const shown = redactUrl(opts.url);
  const max = opts.maxConnections ?? 10;
  const sql = new SQL(opts.url, {
    max,
    // Set on every connection, whatever the server's defaults: an acknowledged write is flushed
    // to the WAL on disk (I2), and writers run READ COMMITTED, so each statement after the LSN
    // lock sees what the writer before it committed (idempotency checks, _tape.ts lockLsns).
    connection: { synchronous_commit: "on", default_transaction_isolation: "read committed", application_name: "zerodb" },
  });
  try {
    await migrate(sql, opts.onProgress);
  } catch (err) {
    await sql.close().catch(() => {});
    throw fromPgError(err, shown);
  }
  // Uploads whose process died are removed; blobs schema 1 kept on this machine's disk move into the database.
  await reapIdleUploads(sql).catch(() => {});
  try {
    await adoptLocalBlobs(sql, opts.dataDir, opts.maxObjectBytes);
  } catch (err) {
    await sql.close().catch(() => {});
    throw fromPgError(err, shown);
  }
  const redactOn = opts.redact ?? true;
  let closed = false;

  /** Runs an operation, mapping every failure to a ZeroDbError. */
  const run = async <T>(fn: () => T | Promise<T>): Promise<T> => {
    if (closed) throw new ZeroDbError("unavailable", "the store is closed");
    try {
      return await fn();
    } catch (err) {
      throw fromPgError(err);
    }
  };
  /**
   * Runs a read again on another connection when the one it got was dead (a
   * server restart kills every pooled connection, and the pool learns of each
   * only when it is used: at most `max` dead ones, so `max` + 1 attempts).
   * Writes are not retried here: a connection lost at COMMIT leaves unknown
   * whether the write landed, and only the caller's idempotency key can
   * settle that.
   */
  const runRead = <T>(fn: () => T | Promise<T>): Promise<T> =>
    run(async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await fn();
        } catch (err) {
          if (!connectionLost(err) || attempt >= max) throw err;
        }
      }
    });
  const objects = pgObjects(sql, { maxObjectBytes: opts.maxObjectBytes, retryRead: runRead });

  /** This engine's operations for a tenant (src/store/memory.ts does the rest, as for every engine). */
  const engineOps = (tenant: string): EngineOps => ({
    append: (input) => append(sql, tenant, input),
    read: (input) => read(sql, tenant, input),
    sessions: (input, upto) => (upto === undefined ? sessions(sql, tenant, input) : sessionsAt(sql, tenant, input, upto)),
    search: (input) => search(sql, tenant, input),
    // Phrasings run one after another, each in a snapshot of its own: one pooled connection at a time.
    snapshot: (fn) => fn(),
    factSet: (input) => factSet(sql, tenant, input),
    factGet: (input, upto) => (upto === undefined ? factGet(sql, tenant, input) : factGetAt(sql, tenant, input, upto)),
    factList: (input, upto) => (upto === undefined ? factList(sql, tenant, input) : factListAt(sql, tenant, input, upto)),
    forget: (input) => forget(sql, tenant, input),
    objectPut: (body, meta) => objects.put(tenant, body, meta),
    objectGet: (input) => objects.get(tenant, input),
    objectList: (input) => objects.list(tenant, input),
    linkAdd: (input) => linkAdd(sql, tenant, input),
    linkList: (input) => linkList(sql, tenant, input),
    factHistory: (input) => factHistory(sql, tenant, input),
    activity: (input) => activity(sql, tenant, input),
    stats: () => stats(sql, tenant),
    diff: (input, span) => diff(sql, tenant, input, span),
    asOf: asOfLookup(sql, tenant),
  });

  const memory = (tenant: string): Memory =>
    createMemory(checkTenant(tenant), engineOps(tenant), { write: run, read: runRead, schemas: () => In, redact: redactOn });

  return {
    dataDir: shown,
    memory,
    tokens: pgTokens(sql, run),
    capture: (tenant) => pgCapture(sql, checkTenant(tenant), run),
    async *exportTape(o = {}): AsyncIterable<TapeRecord> {
      if (closed) throw new ZeroDbError("unavailable", "the store is closed");
      if (o.tenant !== undefined) checkTenant(o.tenant);
      try {
        yield* exportRows(sql, o.tenant, o.after);
      } catch (err) {
        throw fromPgError(err);
      }
    },
    importTape: (records) => run(() => importRecords(sql, records)),
    importWithBlobs: (records, blobs) => run(() => importWithBlobs(sql, records, blobs, opts.maxObjectBytes)),
    check: () => runRead(() => checkDatabase(sql, shown)),
    close: () => {
      if (closed) return;
      closed = true;
      void sql.close().catch(() => {});
    },
  };
}
