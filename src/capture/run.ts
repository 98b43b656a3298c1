/**
 * One capture run over the transcripts of a harness session (DESIGN.md 7.2):
 * from each source's cursor, read complete lines, turn them into entries,
 * and commit them with the cursor, within a budget of entries and bytes.
 * A source that is further behind than the budget catches up over later runs.
 */
import { APPEND_MAX_ENTRIES } from "../limits.ts";
import { ZeroDbError } from "../errors.ts";
import { type CaptureBatch, type CaptureCursor, type CaptureEntry, cursorOf } from "../store/capture.ts";
import { lineEntries } from "./entries.ts";
import { type PendingImage, storeImages } from "./images.ts";
import { type LineReader, openLines } from "./lines.ts";
import type { CaptureSink } from "./sink.ts";
import type { Source } from "./sources.ts";
import { toolNames } from "./tool-names.ts";
import { rendererOf } from "./formats.ts";

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

/** Captures what the sources hold beyond their cursors, within the budget. */
export async function captureSources(opts: RunOptions): Promise<RunResult> {
  const result: RunResult = { appended: 0, skipped: 0, lines: 0, bytes: 0, fileBytes: 0, behind: false, warnings: [] };
  const warnings = new Set<string>();
  const { budget } = opts;
  const left = { entries: budget.entries, bytes: budget.bytes };
  for (const source of opts.sources) {
    using file = new SourceFile(source);
    let attempts = 0;
    while (true) {
      if (left.entries <= 0 || left.bytes <= 0 || (budget.deadline !== undefined && performance.now() > budget.deadline)) {
        result.behind = true;
        break;
      }
      const row = await opts.sink.cursor(source.key);
      const start = cursorOf(row);
      const limits = {
        entries: Math.min(left.entries, budget.batchEntries ?? APPEND_MAX_ENTRIES),
        bytes: Math.min(left.bytes, budget.batchBytes ?? left.bytes),
      };
      // Only a run's first entry may pass the byte budget alone (it can hold no more than one chunk anyway).
      const read = readBatch(source, file, {
        start,
        session: row?.session ?? opts.session,
        redact: opts.redact,
        limits: { ...limits, firstFree: result.lines === 0 && result.bytes === 0 },
        deadline: budget.deadline,
        warnings,
      });
      if (read === undefined) break;
      const { batch, lines, bytes, complete, images } = read;
      if (batch.end.position === start.position && batch.end.chunk === start.chunk) {
        // Nothing new, or the next entry does not fit what is left of the budget.
        if (!complete) result.behind = true;
        break;
      }
      // Objects first: once a turn is visible, the images its meta names are stored.
      for (const w of await storeImages(opts.sink.memory, images)) warnings.add(w);
      const outcome = await commitNaming(opts.sink, batch);
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
    }
  }
  result.warnings = [...warnings];
  return result;
}

/** How readBatch reads a source: from where, into which session, within what limits, and where warnings go. */
interface ReadBatchOptions {
  start: CaptureCursor;
  session: string;
  redact: boolean;
  /** Entries and bytes of this batch; `firstFree`: the first entry may pass the byte limit alone. */
  limits: { entries: number; bytes: number; firstFree: boolean };
  deadline: number | undefined;
  warnings: Set<string>;
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

/**
 * A source's transcript, opened once for all the batches of a run: a `.zst`
 * rollout is decompressed once, not once per batch. A source that opens from
 * an offset (opencode) is opened anew for each batch.
 */
class SourceFile {
  #reader: LineReader | undefined;
  constructor(readonly source: Source) {}

  /** The reader for a batch starting at `offset`; a file opened earlier is opened again when the cursor is past its size then (it grew). */
  open(offset: number): { reader: LineReader; shared: boolean } {
    if (this.source.open) return { reader: this.source.open(offset), shared: false };
    if (this.#reader !== undefined && this.#reader.size < offset) this.close();
    this.#reader ??= openLines(this.source.path);
    return { reader: this.#reader, shared: true };
  }

  close(): void {
    this.#reader?.[Symbol.dispose]();
    this.#reader = undefined;
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/** A batch read from a source, or undefined when the file cannot be read (a warning says why). */
function readBatch(
  source: Source,
  file: SourceFile,
  { start, session, redact, limits, deadline, warnings }: ReadBatchOptions,
): { batch: CaptureBatch; lines: number; bytes: number; complete: boolean; images: PendingImage[] } | undefined {
  let opened;
  try {
    opened = file.open(start.offset);
  } catch (err) {
    const code = (err as { code?: string }).code;
    warnings.add(code === "ENOENT" ? `transcript not found: ${source.path}` : `cannot read ${source.path} (${code ?? "error"})`);
    return undefined;
  }
  const { reader } = opened;
  // A reader of this batch alone is closed with it; the shared one when the source is done.
  using _ = opened.shared ? undefined : reader;
  if (reader.size < start.offset) {
    warnings.add(`${source.path} is shorter than its cursor (${reader.size} < ${start.offset} bytes): left as it is`);
    return undefined;
  }
  const entries: CaptureEntry[] = [];
  const images: PendingImage[] = [];
  let bytes = 0;
  let lines = 0;
  let end = start;
  let complete = true;
  let position = start.position;
  let firstChunk = start.chunk;
  const render = rendererOf(source.format);
  const tools = toolNames((buf, offset) => reader.readAt(buf, offset), start.offset, { render });
  outer: for (const line of reader.lines(start.offset)) {
    if (deadline !== undefined && performance.now() > deadline && lines + entries.length > 0) {
      complete = false;
      break;
    }
    if (line.position !== undefined) {
      // A source that numbers its records: a cursor mid-record resumes its chunks only if that record is still the next one.
      if (line.position !== position) firstChunk = 0;
      position = line.position;
    }
    const text = Buffer.from(line.bytes.buffer, line.bytes.byteOffset, line.bytes.byteLength).toString("utf8");
    const made = lineEntries(text, {
      idemPrefix: source.idemPrefix,
      position,
      agentId: source.agentId,
      redact,
      render,
      toolName: (id) => tools.name(id, line.start),
    });
    tools.note(made.uses, line.start);
    if (made.unparsable) warnings.add(`line ${position} of ${source.path} is not JSON: kept as a note`);
    for (let chunk = firstChunk; chunk < made.entries.length; chunk++) {
      // Checked once, by the engine's commit (the batch's schema), which commitNaming maps back to this line.
      const entry = made.entries[chunk] as CaptureEntry["entry"];
      const size = Buffer.byteLength(entry.content, "utf8");
      if (entries.length >= limits.entries || ((entries.length > 0 || !limits.firstFree) && bytes + size > limits.bytes)) {
        end = { offset: line.start, position, chunk };
        complete = false;
        break outer;
      }
      entries.push({ entry, before: { offset: line.start, position, chunk } });
      bytes += size;
      if (chunk === 0) images.push(...made.images.map((m, i) => ({ image: m.image, idemKey: `${source.idemPrefix}:${position}:image${i}` })));
    }
    lines++;
    position++;
    firstChunk = 0;
    end = { offset: line.end, position, chunk: 0 };
  }
  return { batch: { source: source.key, session, path: source.path, start, end, entries }, lines, bytes, complete, images };
}
