/**
 * One capture run over the transcripts of a harness session (DESIGN.md 7.2):
 * from each source's cursor, read complete lines, turn them into entries,
 * and commit them with the cursor, within a budget of entries and bytes.
 * A source that is further behind than the budget catches up over later runs.
 */
import { APPEND_MAX_ENTRIES } from "../limits.ts";
import { ZeroDbError } from "../errors.ts";
import { type CaptureBatch, type CaptureCursor, cursorOf } from "../store/capture-cursors.ts";
import { currentGeneration } from "./cursor-identity.ts";
import { storeImages } from "./images.ts";
import { type ReadAhead, readableAhead, worthAhead } from "./read-ahead.ts";
import { type BatchRead, type ReadBatchOptions, SourceFile, readBatch } from "./read-batch.ts";
import type { CaptureSink } from "./sink.ts";
import type { Source } from "./sources.ts";

/** How much one run may do. */
export interface Budget {
  /** Entries appended (chunks count one each) over all sources. */
  entries: number;
  /** Content bytes appended over all sources. */
  bytes: number;
  /** performance.now() after which no further line is read (the batch read so far still commits). */
  deadline?: number;
  /** Entries and bytes per transaction (a run may commit several). */
  batchEntries?: number;
  batchBytes?: number;
  /** Start with small batches and size them by how long each commit holds the write lock, up to batchEntries (capture sync: nextSize). */
  growBatches?: boolean;
}

/** What to capture and where. */
export interface RunOptions {
  sink: CaptureSink;
  sources: Source[];
  /** The capture session for a source that has no cursor yet. */
  session: string;
  redact: boolean;
  budget: Budget;
  /** Called after each commit with the transcript bytes consumed so far (progress). */
  onCommit?: (fileBytes: number) => void;
  /** Reads each file's next batch in this worker while the last one commits (`capture sync`: two cores); the caller closes it. */
  readAhead?: ReadAhead;
  /** With readAhead: called once the run's last batch is read, before it commits, to start reading what the caller does next. */
  readNext?: () => Promise<void>;
}

/** What a run did. */
export interface RunResult {
  appended: number;
  /** Entries whose keys were already held (another run stored them, or they were forgotten). */
  skipped: number;
  lines: number;
  /** Content bytes appended or skipped. */
  bytes: number;
  /** Transcript bytes the cursors moved over. */
  fileBytes: number;
  /** True when the budget stopped the run before every source was read to its end. */
  behind: boolean;
  /** Problems worth a log line (unparsable lines, missing files), each once. */
  warnings: string[];
}

/** Attempts per source when other runs keep moving the cursor. */
const MAX_ATTEMPTS = 8;
/** Longest pause between two commits of a run that reads ahead. */
const YIELD_MAX_MS = 50;
/** Entries of the first batch of a run that grows its batches (later ones follow nextSize). */
const FIRST_BATCH_ENTRIES = 512;
/** Fewest entries a batch of a run that grows its batches shrinks to. */
const MIN_BATCH_ENTRIES = 1024;
/** A run that grows its batches keeps each commit (holding the write lock) near this long. */
const COMMIT_TARGET_MS = 100;

/** Captures what the sources hold beyond their cursors, within the budget. */
export async function captureSources(opts: RunOptions): Promise<RunResult> {
  const result: RunResult = { appended: 0, skipped: 0, lines: 0, bytes: 0, fileBytes: 0, behind: false, warnings: [] };
  const warnings = new Set<string>();
  const { budget } = opts;
  const left = { entries: budget.entries, bytes: budget.bytes };
  const ahead = opts.readAhead;
  /** Entries of the next batch of a run that grows its batches, and how long its last commit took. */
  let size = FIRST_BATCH_ENTRIES;
  let lastCommitMs: number | undefined;
  for (const [index, named] of opts.sources.entries()) {
    // A file replaced under its path is a new source read from its start (cursor-identity.ts).
    const source = await currentGeneration(opts.sink, named, (w) => warnings.add(w));
    using file = new SourceFile(source);
    // Reads go to the worker (a file of lines, an opencode session); a batch read there comes back as this thread would have read it.
    const worker = readableAhead(source) ? ahead : undefined;
    let attempts = 0;
    while (true) {
      if (left.entries <= 0 || left.bytes <= 0 || (budget.deadline !== undefined && performance.now() > budget.deadline)) {
        result.behind = true;
        break;
      }
      const row = await opts.sink.cursor(source.key);
      const start = cursorOf(row);
      // Only a run's first entry may pass the byte budget alone (it can hold no more than one chunk anyway).
      const readOpts = batchOptions(opts, left, { start, session: row?.session ?? opts.session, first: result.lines === 0 && result.bytes === 0, size });
      let read: BatchRead | undefined;
      const pipelined = worker !== undefined && (worker.holds(source, readOpts) || worthAhead(source, start.offset));
      if (worker && pipelined) {
        // Read ahead already when it was asked for with these options (from this cursor); read now otherwise.
        const asked = performance.now();
        try {
          const r = await worker.read(source, readOpts);
          for (const w of r.warnings) warnings.add(w);
          read = r.read;
        } catch {
          read = readBatch(source, file, readOpts, warnings);
        }
        // Waiting for the worker longer than a quarter of a commit: this thread has time for the hashes and index text.
        if (lastCommitMs !== undefined) worker.prepare = performance.now() - asked <= lastCommitMs / 4;
      } else read = readBatch(source, file, readOpts, warnings);
      if (read === undefined) break;
      const { batch, lines, bytes, complete, images } = read;
      if (batch.end.position === start.position && batch.end.chunk === start.chunk) {
        // Nothing new, or the next entry does not fit what is left of the budget.
        if (!complete) result.behind = true;
        break;
      }
      if (ahead) {
        // While this batch commits, read what comes next if it commits: the rest of this file, or the next source's first batch.
        const after = { entries: left.entries - batch.entries.length, bytes: left.bytes - bytes };
        const nextSource = opts.sources[index + 1];
        const at = { first: false, size: nextSize(size, lastCommitMs, budget) };
        if (worker && !complete) worker.prefetch(source, batchOptions(opts, after, { start: batch.end, session: batch.session, ...at }));
        else if (complete && nextSource !== undefined) await readFirst(opts, nextSource, after, at);
        else if (complete && nextSource === undefined) await opts.readNext?.();
      }
      // Objects first: once a turn is visible, the images its meta names are stored.
      for (const w of await storeImages(opts.sink.memory, images)) warnings.add(w);
      const began = performance.now();
      const outcome = await commitNaming(opts.sink, batch);
      const took = performance.now() - began;
      if (budget.growBatches) {
        size = nextSize(size, lastCommitMs, budget);
        lastCommitMs = took;
      }
      if (pipelined) {
        // With the next batch read meanwhile, commits would follow each other with no gap: leave the write lock
        // free for a quarter of the time it was held, so a hook waiting on it (busy timeout) gets in.
        await Bun.sleep(Math.min(YIELD_MAX_MS, took / 4));
      }
      if (outcome.status === "moved") {
        // Another run moved the cursor: read again from where it is now.
        if (++attempts >= MAX_ATTEMPTS) break;
        continue;
      }
      result.appended += outcome.appended;
      result.skipped += outcome.skipped;
      result.lines += lines;
      result.bytes += bytes;
      left.entries -= batch.entries.length;
      left.bytes -= bytes;
      result.fileBytes += batch.end.offset - batch.start.offset;
      opts.onCommit?.(result.fileBytes);
      if (complete) break;
      // A batch that stopped inside a line (between its chunks) reads that line again: let the last reading go first,
      // so memory follows one line, not the batches.
      if (batch.end.chunk > 0) Bun.gc(true);
    }
  }
  result.warnings = [...warnings];
  return result;
}

/**
 * Starts reading, in the read-ahead worker, the first batch a run with
 * these options will read (capture sync: the next transcript's, while the
 * last batch of this one commits). Only a hint: the run reads it again
 * unless it asks for the very same read.
 */
export async function readAheadFirst(opts: RunOptions): Promise<void> {
  const source = opts.sources[0];
  if (source !== undefined)
    await readFirst(opts, source, { entries: opts.budget.entries, bytes: opts.budget.bytes }, { first: true, size: FIRST_BATCH_ENTRIES });
}

async function readFirst(opts: RunOptions, source: Source, left: { entries: number; bytes: number }, at: { first: boolean; size: number }): Promise<void> {
  if (!opts.readAhead) return;
  const row = await opts.sink.cursor(source.key);
  const start = cursorOf(row);
  if (worthAhead(source, start.offset)) opts.readAhead.prefetch(source, batchOptions(opts, left, { start, session: row?.session ?? opts.session, ...at }));
}

/**
 * The entries of the next batch of a run that grows its batches, after one of
 * `size`: doubled (the worker reads a batch while the one before commits,
 * so they grow together) up to the budget's batch size, kept once a commit
 * takes half of COMMIT_TARGET_MS, halved past it down to MIN_BATCH_ENTRIES:
 * a hook waits for a commit to end, and smaller batches keep that wait short. It is
 * chosen when the next batch's read starts, before the current batch
 * commits, so from the commit before (`lastCommitMs`).
 */
function nextSize(size: number, lastCommitMs: number | undefined, budget: Budget): number {
  const most = budget.batchEntries ?? APPEND_MAX_ENTRIES;
  // Not below 1,024 (what every batch was before): on a busy machine a commit is slow for want of CPU, not of the lock.
  if (lastCommitMs !== undefined && lastCommitMs > COMMIT_TARGET_MS) return Math.min(most, Math.max(MIN_BATCH_ENTRIES, Math.floor(size / 2)));
  if (lastCommitMs !== undefined && lastCommitMs > COMMIT_TARGET_MS / 2) return Math.min(most, size);
  return Math.min(most, size * 2);
}

/** The options of one batch's read, from where it starts and what is left of the budget. */
function batchOptions(
  opts: RunOptions,
  left: { entries: number; bytes: number },
  at: { start: CaptureCursor; session: string; first: boolean; size: number },
): ReadBatchOptions {
  const { budget } = opts;
  const entries = budget.growBatches ? at.size : (budget.batchEntries ?? APPEND_MAX_ENTRIES);
  return {
    start: at.start,
    session: at.session,
    redact: opts.redact,
    limits: {
      entries: Math.min(left.entries, entries, budget.batchEntries ?? APPEND_MAX_ENTRIES),
      bytes: Math.min(left.bytes, budget.batchBytes ?? left.bytes),
      firstFree: at.first,
    },
    deadline: budget.deadline,
  };
}

/**
 * Commits a batch; a refusal of one entry by the engine's batch schema
 * (`entries.K.entry.<field>`) is told as the transcript line it came from.
 */
async function commitNaming(sink: CaptureSink, batch: CaptureBatch): Promise<Awaited<ReturnType<CaptureSink["commit"]>>> {
  try {
    return await sink.commit(batch);
  } catch (err) {
    const m = err instanceof ZeroDbError ? /^entries\.(\d+)\.entry\.(.+)$/.exec(err.field ?? "") : null;
    const at = m ? batch.entries[Number(m[1])] : undefined;
    if (!(err instanceof ZeroDbError) || !m || !at) throw err;
    const field = `line ${at.before.position}.${m[2]}`;
    throw new ZeroDbError(err.code, `${field}${err.message.slice(err.field!.length)}`, { field, cause: err });
  }
}
