/**
 * The PostgreSQL engine behind the Store and Memory interfaces (DESIGN.md 12),
 * through Bun's built-in SQL client: the only importer of it. Several `serve`
 * processes may share one database; every write takes the LSN lock
 * (_tape.ts), so LSNs increase in commit order (I1, I4).
 */
import { atPoint, boundOf } from "../as-of.ts";
import { asOfLookup, factGetAt, factListAt, sessionsAt } from "./as-of.ts";
import { diffSpan } from "../diff.ts";
import { diff } from "./diff.ts";
import { SQL } from "bun";
import { ZeroDbError } from "../../errors.ts";
import { checkTenant } from "../../schema/common.ts";
import * as In from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { searchPhrasings } from "../../search/fuse.ts";
import type { TapeRecord } from "../../schema/tape.ts";
import { checkObjectMeta, redactAppend, redactFact, redactLink, withRedacted } from "../redact-input.ts";
import type { Memory, Store } from "../types.ts";
import { pgCapture } from "./capture.ts";
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
  const runRead = <T>(fn: () => Promise<T>): Promise<T> =>
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

  const memory = (tenant: string): Memory => {
    checkTenant(tenant);
    // as_of resolved to an LSN, or left out for now (DESIGN.md section 17).
    const at = <T extends { as_of?: number | string }>(input: T) => atPoint(input, asOfLookup(sql, tenant));
    return {
      tenant,
      append: (i) =>
        run(async () => {
          const r = redactAppend(parseInput(In.AppendInput, i), redactOn);
          // Parsed again: a marker may be longer than the secret it replaced, and the limits still hold.
          return withRedacted(await append(sql, tenant, parseInput(In.AppendInput, r.input)), r.redacted);
        }),
      read: (i) => runRead(async () => read(sql, tenant, await at(parseInput(In.ReadInput, i)))),
      sessions: (i) =>
        runRead(async () => {
          const input = await at(parseInput(In.SessionsInput, i ?? {}));
          const upto = boundOf(input);
          return upto === undefined ? sessions(sql, tenant, input) : sessionsAt(sql, tenant, input, upto);
        }),
      search: (i) => runRead(async () => searchPhrasings(await at(parseInput(In.SearchInput, i)), (p) => search(sql, tenant, p))),
      factSet: (i) =>
        run(async () => {
          const r = redactFact(parseInput(In.FactSetInput, i), redactOn);
          return withRedacted(await factSet(sql, tenant, parseInput(In.FactSetInput, r.input)), r.redacted);
        }),
      factGet: (i) =>
        runRead(async () => {
          const input = await at(parseInput(In.FactGetInput, i));
          const upto = boundOf(input);
          return upto === undefined ? factGet(sql, tenant, input) : factGetAt(sql, tenant, input, upto);
        }),
      factList: (i) =>
        runRead(async () => {
          const input = await at(parseInput(In.FactListInput, i ?? {}));
          const upto = boundOf(input);
          return upto === undefined ? factList(sql, tenant, input) : factListAt(sql, tenant, input, upto);
        }),
      forget: (i) => run(() => forget(sql, tenant, parseInput(In.ForgetInput, i))),
      objectPut: (body, meta) => run(() => objects.put(tenant, body, checkObjectMeta(parseInput(In.ObjectPutMeta, meta ?? {}), redactOn))),
      objectGet: (i) => run(() => objects.get(tenant, parseInput(In.ObjectGetInput, i))),
      objectList: (i) => runRead(() => objects.list(tenant, parseInput(In.ObjectListInput, i ?? {}))),
      linkAdd: (i) =>
        run(async () => {
          const r = redactLink(parseInput(In.LinkAddInput, i), redactOn);
          return withRedacted(await linkAdd(sql, tenant, parseInput(In.LinkAddInput, r.input)), r.redacted);
        }),
      linkList: (i) => runRead(() => linkList(sql, tenant, parseInput(In.LinkListInput, i ?? {}))),
      factHistory: (i) => runRead(() => factHistory(sql, tenant, parseInput(In.FactHistoryInput, i))),
      activity: (i) => runRead(() => activity(sql, tenant, parseInput(In.ActivityInput, i ?? {}))),
      stats: (i) =>
        runRead(() => {
          parseInput(In.StatsInput, i ?? {});
          return stats(sql, tenant);
        }),
      diff: (i) =>
        runRead(async () => {
          const input = parseInput(In.DiffInput, i);
          return diff(sql, tenant, input, await diffSpan(input, asOfLookup(sql, tenant)));
        }),
    };
  };

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
