/**
 * The shapes of capture cursors (DESIGN.md 7.2), shared by the engine that
 * keeps them (Store.capture in types.ts) and the capture adapter that moves them.
 */
import type { EntryInput } from "../schema/ops.ts";
import { indexText } from "../search/text.ts";
import { contentHash, opHash, rowChecksum, turnData } from "./hashes.ts";

/** Where a transcript's capture stands: the next line (by byte offset and index) and its next chunk. */
export interface CaptureCursor {
  offset: number;
  position: number;
  chunk: number;
}

/** A stored cursor: the cursor plus the capture session and file it belongs to. */
export interface CursorRow extends CaptureCursor {
  source: string;
  session: string;
  path: string;
  /** Milliseconds since the epoch of its last move. */
  updated: number;
}

/** One entry of a batch, with the cursor before it (entries are in cursor order). */
export interface CaptureEntry {
  entry: EntryInput & { idem_key: string };
  before: CaptureCursor;
}

/** Entries read from one source from `start`, and the cursor after all of them. */
export interface CaptureBatch {
  source: string;
  session: string;
  path: string;
  start: CaptureCursor;
  end: CaptureCursor;
  entries: CaptureEntry[];
  /** What the engine derives from each entry, computed where the batch was read (prepareTurns); one per entry. */
  prepared?: PreparedTurn[];
  /** The store id the prepared turns' checksums were computed for (an engine ignores them for any other). */
  preparedFor?: string;
}

/**
 * What an engine derives from a captured entry before writing it: its
 * content hash, its operation hash, its data column (hashes.ts), its size, its index
 * text (search/text.ts) and, given the store's id, its SQLite row checksum
 * over that data. `capture sync` computes them in its read-ahead worker,
 * with these same functions, so the thread that commits does not; an engine
 * may take them instead of computing them again (SQLite does).
 */
export interface PreparedTurn {
  contentHash: Uint8Array;
  opHash: Uint8Array;
  index: string;
  data: string;
  /** The content's length in UTF-8 bytes. */
  bytes: number;
  /** rowChecksum for the batch's `preparedFor` store id, with `data`. */
  checksum?: Uint8Array;
}

/** The prepared turns of a batch, one per entry; with `storeId`, each with its row checksum for that store. */
export function prepareTurns(batch: CaptureBatch, storeId?: string): PreparedTurn[] {
  return batch.entries.map(({ entry }) => {
    const meta = entry.meta as Record<string, unknown> | undefined;
    const data = turnData(entry.role, meta);
    return {
      contentHash: contentHash(entry.content),
      opHash: opHash.turn(batch.session, entry.role, entry.content, meta),
      index: indexText(entry.content),
      data,
      bytes: Buffer.byteLength(entry.content, "utf8"),
      ...(storeId !== undefined ? { checksum: rowChecksum(storeId, { subject: batch.session, text: entry.content, data }) } : {}),
    };
  });
}

/** What a commit did: appended (skipping entries already stored), or found the cursor elsewhere. */
export type CommitOutcome = { status: "committed"; appended: number; skipped: number; cursor: CaptureCursor } | { status: "moved"; cursor: CaptureCursor };

/** The cursor of a source that has none yet: the first line of the file. */
export const CURSOR_START: CaptureCursor = { offset: 0, position: 0, chunk: 0 };

/** Orders cursors by line, then chunk. */
export function compareCursors(a: CaptureCursor, b: CaptureCursor): number {
  return a.position - b.position || a.chunk - b.chunk;
}

/** Just the cursor of a row. */
export function cursorOf(row: CaptureCursor | undefined): CaptureCursor {
  return row ? { offset: row.offset, position: row.position, chunk: row.chunk } : CURSOR_START;
}

/** True when two cursors name the same place. */
export function sameCursor(a: CaptureCursor, b: CaptureCursor): boolean {
  return a.position === b.position && a.chunk === b.chunk && a.offset === b.offset;
}

/**
 * Where a batch's appends must start, given the cursor found under the lock:
 * the index of the first entry to store, "done" when the cursor is at or past
 * the batch's end, or "elsewhere" when the batch does not cover the cursor
 * (behind its start, or between chunks it does not know): read again from there.
 */
export function resumeIndex(batch: CaptureBatch, current: CaptureCursor): number | "done" | "elsewhere" {
  if (compareCursors(current, batch.end) >= 0) return "done";
  if (sameCursor(current, batch.start)) return 0;
  const i = batch.entries.findIndex((e) => sameCursor(e.before, current));
  return i >= 0 ? i : "elsewhere";
}
