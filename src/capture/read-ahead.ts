/**
 * Reading a source's next batch while the previous one commits (`capture
 * sync`, DESIGN.md 7.2): a Worker reads, renders, redacts and chunks lines
 * (read-batch.ts) on the second core while the main thread commits. The
 * commit is unchanged: it re-reads the cursor under the write lock, so a
 * batch read ahead from a cursor that another run has since moved is
 * refused as `moved` and read again, and a cursor moves only with the
 * commit of its entries. Any failure of the worker is answered by reading
 * the batch on the main thread, which then reports the error as it would.
 */
import { statSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { isJsonChat, isZstd } from "./lines.ts";
import type { BatchRead, ReadBatchOptions } from "./read-batch.ts";
import type { Source } from "./sources.ts";
import { vouchBatch } from "../schema/capture-batch.ts";

/** A source as it crosses to the worker: without `open`, which the worker makes again for an opencode session. */
export type WireSource = Omit<Source, "open">;

/** Whether the worker can read a source: a file of lines, or an opencode session (whose reader it can make). */
export function readableAhead(source: Source): boolean {
  return source.open === undefined || source.opencode !== undefined;
}

/**
 * Whether a core is free for the worker when a sync starts: two or more, and
 * the load (its one-minute average) under their number. On 2 vCPUs the
 * worker made capture sync 20-50% faster at a load of 1.8, and slower than
 * one thread reading and committing in turn at 3-4, where the two threads
 * only take turns on what is left of one core.
 */
export function coreFree(): boolean {
  const cores = availableParallelism();
  return cores >= 2 && (loadavg()[0] ?? 0) < cores;
}

/** Below this many new bytes, a plain transcript is read on the main thread: a round trip (and a worker start) would cost more. */
const AHEAD_MIN_BYTES = 32 * 1024;

/** Whether reading from `offset` on is worth the worker: a plain transcript with little new is not (a caught-up sync reads nothing). */
export function worthAhead(source: Source, offset: number): boolean {
  if (!readableAhead(source)) return false;
  if (source.open !== undefined || isZstd(source.path) || isJsonChat(source.path)) return true;
  try {
    return statSync(source.path).size - offset >= AHEAD_MIN_BYTES;
  } catch {
    return false;
  }
}

/** A read the worker is asked for. */
export interface ReadRequest {
  id: number;
  source: WireSource;
  opts: ReadBatchOptions;
  /** Compute the batch's prepared turns (hashes, index text) too. */
  prepare: boolean;
  /** The store's id, for the prepared turns' row checksums (CaptureCursors.storeId). */
  storeId?: string;
}

/** The worker's answer: the batch (undefined when the file cannot be read) and its warnings, or why it failed. */
export interface ReadReply {
  id: number;
  read?: BatchRead;
  warnings: string[];
  error?: string;
  /** The worker found the batch plainly good (plainlyGoodBatch, src/schema/capture-batch.ts): the commit need not check it again. */
  checked?: boolean;
}

/** A batch read in the worker, once it is taken. */
export type Ahead = Promise<{ read: BatchRead | undefined; warnings: string[] }>;

/** One worker for the reads of a sync; closed (its files with it) when the sync ends. */
export class ReadAhead {
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #waiting = new Map<number, { resolve: (r: ReadReply) => void; reject: (e: Error) => void }>();
  /**
   * Whether the worker also computes each batch's prepared turns (hashes and
   * index text), which the commit otherwise computes: the caller turns it
   * off while it waits for the worker, so the work goes to whichever thread
   * has time (it changes nothing stored).
   */
  prepare = true;
  /** The id of the store the batches go to, when its engine checksums rows with it: prepared turns then carry their checksums. */
  storeId: string | undefined;

  /** The worker's script: read-worker.ts (tests give one that fails). */
  constructor(readonly script: string = new URL("./read-worker.ts", import.meta.url).href) {}

  /** The worker failed: reads are refused at once (the caller reads on its own thread). */
  #broken = false;
  /** The read started ahead of being asked for, and for what. */
  #ahead: { key: string; path: string; opts: ReadBatchOptions; read: Ahead } | undefined;

  /**
   * One batch: the read started ahead when it was for this source with the
   * same options, a read started now otherwise. Rejects when the worker
   * cannot read (the caller reads it itself).
   */
  read(source: Source, opts: ReadBatchOptions): Ahead {
    const ahead = this.#ahead;
    const held = this.holds(source, opts);
    this.#ahead = undefined;
    return held ? ahead!.read : this.#send(source, opts);
  }

  /** True once the worker failed (could not start, or died): reads are then the caller's own. */
  get failed(): boolean {
    return this.#broken;
  }

  /** Whether a read of this source with these options was started ahead. */
  holds(source: Source, opts: ReadBatchOptions): boolean {
    const ahead = this.#ahead;
    return ahead !== undefined && ahead.key === source.key && ahead.path === source.path && sameRead(ahead.opts, opts);
  }

  /** Starts reading a batch that read() will likely ask for next; the one started before, if not taken, is dropped. */
  prefetch(source: Source, opts: ReadBatchOptions): void {
    this.#ahead = { key: source.key, path: source.path, opts, read: this.#send(source, opts) };
  }

  #send(source: Source, opts: ReadBatchOptions): Ahead {
    let read: Ahead;
    try {
      const worker = this.#start();
      const id = this.#nextId++;
      const { open: _open, ...wire } = source;
      read = new Promise<ReadReply>((resolve, reject) => {
        this.#waiting.set(id, { resolve, reject });
        // Alive while a read is in flight (someone awaits it), and no longer.
        worker.ref();
        const storeId = this.storeId !== undefined ? { storeId: this.storeId } : {};
        worker.postMessage({ id, source: wire, opts, prepare: this.prepare, ...storeId } satisfies ReadRequest);
      }).then((reply) => {
        if (reply.error !== undefined) throw new Error(reply.error);
        if (reply.checked && reply.read) vouchBatch(reply.read.batch);
        return { read: reply.read, warnings: reply.warnings };
      });
    } catch (err) {
      // No worker (it could not start, or it died): every read from now on is the caller's own.
      this.#broken = true;
      read = Promise.reject(err);
    }
    // A read dropped unasked (its cursor moved, the sync ended) must not be an unhandled rejection; whoever takes it still sees the error.
    read.catch(() => undefined);
    return read;
  }

  #start(): Worker {
    if (this.#broken) throw new Error("capture read worker unavailable");
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.script);
    worker.onmessage = (e: MessageEvent<ReadReply>) => {
      const w = this.#waiting.get(e.data.id);
      this.#waiting.delete(e.data.id);
      if (this.#waiting.size === 0) worker.unref();
      w?.resolve(e.data);
    };
    worker.onerror = (e) => this.#fail(new Error(`capture read worker: ${e.message}`));
    this.#worker = worker;
    return worker;
  }

  #fail(err: Error): void {
    this.#broken = true;
    for (const w of this.#waiting.values()) w.reject(err);
    this.#waiting.clear();
    this.#worker?.terminate();
    this.#worker = undefined;
  }

  /** Closes the worker's files and ends it; reads still in flight are refused. */
  close(): void {
    this.#ahead = undefined;
    if (!this.#worker) return;
    this.#worker.postMessage({ close: true });
    this.#worker.unref();
    this.#worker = undefined;
    for (const w of this.#waiting.values()) w.reject(new Error("capture read worker closed"));
    this.#waiting.clear();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/** Whether two reads are the same read: same cursor, session and limits. */
export function sameRead(a: ReadBatchOptions, b: ReadBatchOptions): boolean {
  return (
    a.start.offset === b.start.offset &&
    a.start.position === b.start.position &&
    a.start.chunk === b.start.chunk &&
    a.session === b.session &&
    a.redact === b.redact &&
    a.limits.entries === b.limits.entries &&
    a.limits.bytes === b.limits.bytes &&
    a.limits.firstFree === b.limits.firstFree &&
    a.deadline === b.deadline
  );
}
