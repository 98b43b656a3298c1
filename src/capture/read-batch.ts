/**
 * Reading one batch of a source (DESIGN.md 7.2): complete lines from a
 * cursor, each turned into its entries (render, redact, chunk), up to a
 * batch's limits. Pure but for reading the transcript: the same file from
 * the same cursor always gives the same batch, so a batch read ahead (in a
 * worker, read-ahead.ts) is the one a read at commit time would give.
 */
import type { CaptureBatch, CaptureCursor, CaptureEntry } from "../store/capture-cursors.ts";
import { lineEntries } from "./entries.ts";
import { rendererOf } from "./formats.ts";
import type { PendingImage } from "./images.ts";
import { messageVersions } from "./gemini-versions.ts";
import { type LineReader, isJsonChat, openLines } from "./lines.ts";
import { type Source, ownAgentFile } from "./sources.ts";
import { toolNames } from "./tool-names.ts";

/** How readBatch reads a source: from where, into which session, within what limits. */
export interface ReadBatchOptions {
  start: CaptureCursor;
  session: string;
  redact: boolean;
  /** Entries and bytes of this batch; `firstFree`: the first entry may pass the byte limit alone. */
  limits: { entries: number; bytes: number; firstFree: boolean };
  deadline: number | undefined;
}

/** A batch read from a source: the entries with their cursors, what it covers, and the images its lines hold. */
export interface BatchRead {
  batch: CaptureBatch;
  lines: number;
  bytes: number;
  /** The source was read to its end. */
  complete: boolean;
  images: PendingImage[];
}

/**
 * A source's transcript, opened once for all the batches of a run: a `.zst`
 * rollout is decompressed once, an opencode session's records are listed
 * once, not once per batch. A file's reader serves any offset; a source that
 * opens from an offset (opencode) serves that offset and later ones.
 */
export class SourceFile {
  #reader: LineReader | undefined;
  /** The least offset the reader serves. */
  #from = 0;
  constructor(readonly source: Source) {}

  /** The reader for a batch starting at `offset`; opened again when the cursor is past what it held then (it grew). */
  open(offset: number): LineReader {
    if (this.#reader !== undefined && (this.#reader.size < offset || offset < this.#from)) this.close();
    if (this.#reader === undefined) {
      this.#reader = this.source.open ? this.source.open(offset) : openLines(this.source.path);
      this.#from = this.source.open ? offset : 0;
    }
    return this.#reader;
  }

  close(): void {
    this.#reader?.[Symbol.dispose]();
    this.#reader = undefined;
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/** A batch read from a source, or undefined when the file cannot be read (a warning in `warnings` says why). */
export function readBatch(
  source: Source,
  file: SourceFile,
  { start, session, redact, limits, deadline }: ReadBatchOptions,
  warnings: Set<string>,
): BatchRead | undefined {
  let reader: LineReader;
  try {
    // Closed when the source is done (SourceFile), not with this batch.
    reader = file.open(start.offset);
  } catch (err) {
    const code = (err as { code?: string }).code;
    warnings.add(code === "ENOENT" ? `transcript not found: ${source.path}` : `cannot read ${source.path} (${code ?? "error"})`);
    return undefined;
  }
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
  const ownFile = ownAgentFile(source);
  const render = rendererOf(source.format, ownFile ? { ownFile } : {});
  const tools = toolNames((buf, offset) => reader.readAt(buf, offset), start.offset, { render });
  // Gemini writes a message again with the same id as it changes: each version is told against the one before.
  const versions =
    source.format === "gemini" && !isJsonChat(source.path) ? messageVersions((buf, offset) => reader.readAt(buf, offset), start.offset, render) : undefined;
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
      render: versions ? (t) => versions.render(t, line.start) : render,
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
