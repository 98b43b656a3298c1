/**
 * Reading a JSONL transcript from a byte offset, one complete line at a time.
 * A last line without its newline is still being written (Claude Code writes
 * the transcript asynchronously): it is left for the next run (DESIGN.md 7.2).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** One complete line: its bytes (without the newline) and where it starts and ends in the file. */
export interface Line {
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past its newline: where the next line starts. */
  end: number;
  bytes: Uint8Array;
  /** The line's position when the source numbers its lines itself (opencode: from record ids), not by counting. */
  position?: number;
}

const FIRST_READ = 64 * 1024;
const NEWLINE = 0x0a;

/** An open transcript; close it when done (`using`). */
export interface LineReader {
  /** The file's size when it was opened. */
  readonly size: number;
  /** Complete lines from `offset` on, lazily: stop pulling and nothing more is read. */
  lines(offset: number): Generator<Line>;
  /** Reads up to `buf.length` bytes at `offset`; returns how many were read. */
  readAt(buf: Uint8Array, offset: number): number;
  [Symbol.dispose](): void;
}

/**
 * Opens a regular file for reading, never following a symlink at its last
 * component and never waiting on a FIFO (issue 14: a FIFO as transcript_path
 * hung the hook; a symlink to /etc/shadow was stored when it ran as root).
 * Throws ENOENT, ELOOP (a symlink), EISDIR and ENOTREG (a FIFO, device or
 * socket) as codes the caller turns into one warning.
 */
export function openRegular(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  const st = fstatSync(fd);
  if (st.isFile()) return fd;
  closeSync(fd);
  // Linux opens a directory for reading and fails only at the first read, mid-run: say so here,
  // so the caller warns "cannot read <path> (EISDIR)" instead of logging an internal error.
  if (st.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: "EISDIR" });
  throw Object.assign(new Error(`${path} is not a regular file`), { code: "ENOTREG" });
}

/** True for a zstd-compressed transcript (Codex compresses old rollouts in place: HARNESSES.md "Compression"). */
export function isZstd(path: string): boolean {
  return path.endsWith(".zst");
}

/**
 * Opens a transcript for reading; throws ENOENT and the like as they are.
 * A `.zst` file is read as its decompressed bytes, so offsets are those of
 * the plain file it was made from and a cursor survives the compression.
 */
export function openLines(path: string): LineReader {
  if (isZstd(path)) return memoryLines(readZstd(path));
  if (isJsonChat(path)) return jsonChatLines(path);
  const fd = openRegular(path);
  let closed = false;
  const st = fstatSync(fd);
  const size = st.size;
  return {
    size,
    *lines(offset: number) {
      let buf = new Uint8Array(FIRST_READ);
      let bufStart = offset; // file offset of buf[0]
      let filled = 0;
      let scanFrom = 0;
      let lineStart = 0; // index in buf
      let eof = false;
      while (true) {
        const nl = indexOfNewline(buf, scanFrom, filled);
        if (nl >= 0) {
          yield { start: bufStart + lineStart, end: bufStart + nl + 1, bytes: buf.subarray(lineStart, nl) };
          lineStart = nl + 1;
          scanFrom = lineStart;
          continue;
        }
        if (eof) return;
        // Keep the unfinished line at the front; grow the buffer when the line fills it.
        const pending = filled - lineStart;
        const want = Math.max(FIRST_READ, pending * 2);
        // A fresh buffer whenever lines were handed out of this one: callers may still hold them.
        const next = want > buf.length || lineStart > 0 ? new Uint8Array(Math.max(buf.length, want)) : buf;
        if (next !== buf) next.set(buf.subarray(lineStart, filled), 0);
        buf = next;
        bufStart += lineStart;
        filled = pending;
        lineStart = 0;
        scanFrom = pending;
        const limit = Math.min(buf.length - filled, size - (bufStart + filled));
        if (limit <= 0) {
          eof = true;
          continue;
        }
        const n = readSync(fd, buf, filled, limit, bufStart + filled);
        if (n === 0) eof = true;
        filled += n;
      }
    },
    readAt(buf: Uint8Array, offset: number) {
      return readSync(fd, buf, 0, buf.length, offset);
    },
    [Symbol.dispose]() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}

function indexOfNewline(buf: Uint8Array, from: number, to: number): number {
  const i = buf.indexOf(NEWLINE, from);
  return i >= 0 && i < to ? i : -1;
}

/** The decompressed bytes of a `.zst` file (opened as openRegular does: no symlink, no FIFO). */
function readZstd(path: string): Uint8Array {
  const fd = openRegular(path);
  try {
    const size = fstatSync(fd).size;
    const buf = new Uint8Array(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    try {
      return Bun.zstdDecompressSync(buf.subarray(0, got));
    } catch (err) {
      // A file being compressed (or cut) is not yet a whole frame: read it on a later run.
      throw Object.assign(new Error(`${path} is not a complete zstd file`), { code: "EZSTD", cause: err });
    }
  } finally {
    closeSync(fd);
  }
}

/** True for a whole-file JSON chat (Gemini CLI before its JSONL chats): not appended to but rewritten. */
export function isJsonChat(path: string): boolean {
  return path.endsWith(".json");
}

/**
 * A whole-file JSON chat `{...metadata, messages: [...]}` as lines: the
 * metadata, then each message as JSON. Gemini rewrote such a file whole, so
 * byte offsets would move under a cursor: here a line's "offset" is its
 * index, and a message already captured is never read again (a later change
 * to it is not captured; a message added is).
 */
function jsonChatLines(path: string): LineReader {
  const fd = openRegular(path);
  let text: string;
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    text = buf.subarray(0, got).toString("utf8");
  } finally {
    closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // Half-written (Gemini rewrites the file): read it on a later run.
    throw Object.assign(new Error(`${path} is not complete JSON`), { code: "EJSON", cause: err });
  }
  const chat = (typeof value === "object" && value !== null && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
  const { messages, ...head } = chat;
  const encoder = new TextEncoder();
  const lines = [JSON.stringify(head), ...(Array.isArray(messages) ? messages.map((m) => JSON.stringify(m)) : [])].map((l) => encoder.encode(l));
  return {
    size: lines.length,
    *lines(offset: number) {
      for (let i = offset; i < lines.length; i++) yield { start: i, end: i + 1, bytes: lines[i]! };
    },
    readAt: () => 0,
    [Symbol.dispose]() {},
  };
}

/** A LineReader over bytes in memory. */
export function memoryLines(data: Uint8Array): LineReader {
  return {
    size: data.length,
    *lines(offset: number) {
      let start = offset;
      while (start < data.length) {
        const nl = data.indexOf(NEWLINE, start);
        if (nl < 0) return;
        yield { start, end: nl + 1, bytes: data.subarray(start, nl) };
        start = nl + 1;
      }
    },
    readAt(buf: Uint8Array, offset: number) {
      const part = data.subarray(offset, offset + buf.length);
      buf.set(part, 0);
      return part.length;
    },
    [Symbol.dispose]() {},
  };
}

/** The size of a transcript as its cursor counts: the decompressed size of a `.zst` file, the message count of a JSON chat. */
export function transcriptSize(path: string): number {
  using reader = openLines(path);
  return reader.size;
}

/** How many complete lines the file holds from `offset` on (for `capture status`). */
export function countLines(path: string, offset: number): number {
  if (isZstd(path) || isJsonChat(path)) {
    let count = 0;
    using reader = openLines(path);
    for (const _ of reader.lines(offset)) count++;
    return count;
  }
  const fd = openRegular(path);
  try {
    const size = fstatSync(fd).size;
    const buf = new Uint8Array(1024 * 1024);
    let count = 0;
    for (let pos = offset; pos < size; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      if (n === 0) break;
      for (let i = buf.indexOf(NEWLINE); i >= 0 && i < n; i = buf.indexOf(NEWLINE, i + 1)) count++;
      pos += n;
    }
    return count;
  } finally {
    closeSync(fd);
  }
}
