/**
 * The narrow interfaces every door talks to. `Memory` is one tenant's view of
 * the operations of DESIGN.md section 5; `Store` is the engine that hands out
 * memories and owns the whole-store work (export, import, checks). A second
 * engine (or the HTTP client) implements the same interfaces.
 */
import type { z } from "zod";
import type * as In from "../schema/ops.ts";
import type * as Out from "../schema/results.ts";
import type { TapeRecord } from "../schema/tape.ts";
import type * as Tok from "../schema/tokens.ts";
import type { ByteRange, ObjectSource } from "../objects/types.ts";
import type { CaptureBatch, CommitOutcome, CursorRow } from "./capture-cursors.ts";

/** An object as object_get returns it: its ref's fields and a way to read the bytes. */
export interface ObjectBody extends Out.ObjectInfo {
  /** Streams the bytes, all of them or a range (`end` exclusive). */
  read(range?: ByteRange): ReadableStream<Uint8Array>;
  /** The local file holding the bytes, when the store is in this process. */
  path?: string;
}

/** One tenant's operations. Inputs are validated by the implementation. */
export interface Memory {
  /** The tenant every operation acts in. */
  readonly tenant: string;
  /** Appends 1–256 entries to a session, all or nothing. */
  append(input: z.input<typeof In.AppendInput>): Promise<Out.AppendResult>;
  /** A page of a session's turns after an LSN. */
  read(input: z.input<typeof In.ReadInput>): Promise<Out.ReadResult>;
  /** Sessions by name. */
  sessions(input: z.input<typeof In.SessionsInput>): Promise<Out.SessionsResult>;
  /** Full-text search in BM25 order. */
  search(input: z.input<typeof In.SearchInput>): Promise<Out.SearchResult>;
  /** Sets a fact, superseding its old value. */
  factSet(input: z.input<typeof In.FactSetInput>): Promise<Out.WriteResult>;
  /** The current value of a fact, or not_found. */
  factGet(input: z.input<typeof In.FactGetInput>): Promise<Out.Fact>;
  /** Current facts by key. */
  factList(input: z.input<typeof In.FactListInput>): Promise<Out.FactListResult>;
  /** Hides and purges everything a selector matches. */
  forget(input: z.input<typeof In.ForgetInput>): Promise<Out.ForgetResult>;
  /** Stores bytes by content and records the tenant's ref to them (DESIGN.md section 8). */
  objectPut(body: ObjectSource, meta?: z.input<typeof In.ObjectPutMeta>): Promise<Out.ObjectPutResult>;
  /** An object the tenant holds, or not_found (a foreign digest included, I5). */
  objectGet(input: z.input<typeof In.ObjectGetInput>): Promise<ObjectBody>;
  /** The objects the tenant holds, one entry per digest. */
  objectList(input?: z.input<typeof In.ObjectListInput>): Promise<Out.ObjectListResult>;
  /** Adds a link (http/https, never fetched). */
  linkAdd(input: z.input<typeof In.LinkAddInput>): Promise<Out.WriteResult>;
  /** The tenant's live links, newest first, paged by `before`; read only. */
  linkList(input?: z.input<typeof In.LinkListInput>): Promise<Out.LinkListResult>;
  /** Every live value a fact key has had, newest first (the tape keeps each fact_set until forgotten); read only. */
  factHistory(input: z.input<typeof In.FactHistoryInput>): Promise<Out.FactHistoryResult>;
  /** Turns and their bytes per UTC day over the last days, one aggregate query; read only. */
  activity(input?: z.input<typeof In.ActivityInput>): Promise<Out.ActivityResult>;
  /** Counts and sizes (D7). */
  stats(input?: z.input<typeof In.StatsInput>): Promise<Out.StatsResult>;
  /** What was added between two points: turns per session, facts old and new, forgets (DESIGN.md section 17); read only. */
  diff(input: z.input<typeof In.DiffInput>): Promise<Out.DiffResult>;
}

/** What a finished backup held. */
export interface BackupCounts {
  records: number;
  tokens: number;
  cursors: number;
  objects: number;
  /** 0 for a full backup; an increment holds the records after this LSN. */
  after: number;
  /** The store's last LSN at the snapshot. */
  last_lsn: number;
}

/** What a restore rebuilt. */
export interface RestoreResult {
  /** Records, tokens, capture cursors and objects the restored store holds. */
  records: number;
  tokens: number;
  cursors: number;
  objects: number;
  /** The last snapshot's LSN: the restored store's next record comes after it. */
  last_lsn: number;
  /** The files restored: a full backup and the increments after it. */
  files: number;
  data_dir: string;
  /**
   * The id of the store the backup came from. A data dir restore keeps it as
   * its own (the same store, README: a restored copy and its source); a
   * database restore only reports it (the database is a store of its own).
   */
  store_id: string;
  tenant: string | null;
}

/** Result of a store check (`zerodb doctor`). */
export interface CheckResult {
  ok: boolean;
  detail: string;
}

/** The store's HTTP tokens (DESIGN.md section 2): only SHA-256 digests are kept. */
export interface Tokens {
  /** A new token for a tenant; the secret is in the result and nowhere else. */
  create(input: z.input<ReturnType<typeof Tok.tokenSchemas>["TokenCreateInput"]>): Promise<Tok.NewToken>;
  /** Every token, oldest first, without secrets. */
  list(): Promise<Tok.TokenListResult>;
  /** Stops a token from working, at once; not_found for an unknown id. */
  revoke(input: z.input<ReturnType<typeof Tok.tokenSchemas>["TokenRevokeInput"]>): Promise<Tok.TokenInfo>;
  /** The tenant a live token authenticates, or undefined (constant-time digest comparison). */
  verify(token: string): Promise<string | undefined>;
}

/**
 * One tenant's capture cursors (DESIGN.md 7.2). An engine keeps each cursor
 * beside the tape, so a batch and the cursor that covers it commit in one
 * transaction: capture is exactly-once however hooks overlap or die.
 */
export interface CaptureCursors {
  /**
   * The store's id, where the engine checksums rows with it (SQLite): capture
   * sync's read-ahead worker then computes each entry's checksum off the
   * committing thread (prepareTurns in src/store/capture-cursors.ts).
   */
  readonly storeId?: string;
  /** The cursor of a source (its capture session fixed at the first capture), or undefined. */
  cursor(source: string): Promise<CursorRow | undefined>;
  /** Every cursor of the tenant, by source. */
  cursors(): Promise<CursorRow[]>;
  /**
   * Appends a batch and moves its source's cursor to the batch's end in one
   * transaction. The cursor is read again inside it (resumeIndex): a prefix
   * another run stored is not appended again; a batch that does not cover
   * the cursor writes nothing and answers "moved". An entry whose idem_key
   * the tenant holds is skipped (I3, forgotten ones included). A bad batch
   * is refused naming the field, with nothing written (I6).
   */
  commit(batch: CaptureBatch): Promise<CommitOutcome>;
}

/** What an engine counted of its own work since tracing started (`ZERODB_CAPTURE_TRACE`). */
export interface WorkTrace {
  /** Statements (or queries) run. */
  statements: number;
  /** Rows they returned. */
  rows: number;
  /** Full scans of a table in their plans, each statement once, as the engine words them. */
  scans: string[];
}

/** The engine: memories per tenant plus whole-store work. */
export interface Store {
  /** Where the store lives, for messages. */
  readonly dataDir: string;
  /** One tenant's memory. */
  memory(tenant: string): Memory;
  /** The HTTP tokens kept in this store. */
  readonly tokens: Tokens;
  /** One tenant's capture cursors; the tenant is checked like memory's. */
  capture(tenant: string): CaptureCursors;
  /**
   * Optional: counts the engine's work from now on, every caller's in this
   * process; the object returned keeps counting. Calling it again returns
   * the same counts. An engine that cannot count leaves it out.
   */
  trace?(): WorkTrace;
  /**
   * A backup (DESIGN.md 15): the bytes of one file holding a consistent
   * snapshot of the tape, the tokens and capture cursors, and every object
   * the records reference, while others write; with `after` (or `since`, an
   * earlier backup file of this store) an increment of the records after
   * that LSN. Bad options are refused before the first chunk; `counts` is
   * complete once every chunk is read. An engine that cannot take one leaves
   * it out (PostgreSQL: pg_dump).
   */
  backup?(opts: { tenant?: string; after?: number; since?: string }): { chunks: Iterable<Uint8Array>; counts: BackupCounts };
  /**
   * Every tape record of every tenant (or one), in LSN order; with `after`,
   * only those after that LSN, read from there (not filtered from the start).
   */
  exportTape(opts?: { tenant?: string; after?: number }): AsyncIterable<TapeRecord>;
  /** Restores exported records into an empty store, keeping their LSNs. */
  importTape(records: AsyncIterable<unknown>): Promise<{ records: number; last_lsn: number }>;
  /**
   * Optional: importTape into an empty store together with the bytes of the
   * objects the records reference, checked against their digests; records
   * and bytes appear in one transaction or not at all (a restore into this
   * engine). An engine whose own restore writes blobs (SQLite) leaves it out.
   */
  importWithBlobs?(
    records: AsyncIterable<unknown>,
    blobs: AsyncIterable<{ digest: string; bytes(): ReadableStream<Uint8Array> }>,
  ): Promise<{ records: number; last_lsn: number; objects: number }>;
  /** `PRAGMA quick_check` (or integrity_check with `full`). */
  check(opts?: { full?: boolean }): Promise<CheckResult>;
  /** Closes the store; later calls fail. */
  close(): void;
}
