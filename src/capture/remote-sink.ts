/**
 * The capture sink of remote mode (config `url`): entries go through the
 * HTTP client's Memory, and the cursor lives in a file in the home, one per
 * server, tenant and source. The cursor file cannot commit with the server's
 * transaction, so it is only ever a lower bound: a replay from an older
 * cursor resends entries whose idempotency keys the server already holds,
 * and it answers `duplicate: true` without writing (I3).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { isZeroDbError } from "../errors.ts";
import { APPEND_MAX_ENTRIES, HTTP_BODY_MAX_BYTES } from "../limits.ts";
import {
  type CaptureBatch,
  type CaptureCursor,
  type CaptureEntry,
  type CommitOutcome,
  type CursorRow,
  compareCursors,
  cursorOf,
  resumeIndex,
} from "../store/capture-cursors.ts";
import type { Memory } from "../store/types.ts";
import { writeFileAtomic } from "../util/atomic.ts";
import { sha256Hex } from "../util/hash.ts";
import { measure } from "./chunk.ts";
import type { CaptureSink } from "./sink.ts";
import { listDir } from "../util/fs.ts";

/** Room left in a request body for the envelope around the entries. */
const BODY_BUDGET = HTTP_BODY_MAX_BYTES - 64 * 1024;

/** A cursor file as `save` writes it; anything else (torn by hand, another version) reads as no cursor. */
const CursorFile = z.object({
  source: z.string(),
  session: z.string(),
  path: z.string(),
  // z.int() is a safe integer, as Number.isSafeInteger was.
  offset: z.int(),
  position: z.int(),
  chunk: z.int(),
  updated: z.number(),
}) satisfies z.ZodType<CursorRow>;

/** The directory of a server's and tenant's cursor files. */
export function remoteCursorDir(home: string, url: string, tenant: string): string {
  return join(home, "capture", sha256Hex(`${url}\n${tenant}`).slice(0, 16));
}

/** A sink that appends through `memory` and keeps cursors in `dir`. */
export function remoteSink(memory: Memory, dir: string): CaptureSink {
  const file = (source: string) => join(dir, `${sha256Hex(source).slice(0, 32)}.json`);
  const read = (path: string): CursorRow | undefined => {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, "utf8"));
    } catch {
      return undefined;
    }
    const row = CursorFile.safeParse(json);
    return row.success ? row.data : undefined;
  };
  const save = (batch: CaptureBatch, cursor: CaptureCursor) => {
    // Another run may have moved it further meanwhile: never move it back.
    const now = read(file(batch.source));
    if (now && compareCursors(now, cursor) >= 0) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const row: CursorRow = { source: batch.source, session: now?.session ?? batch.session, path: batch.path, ...cursor, updated: Date.now() };
    writeFileAtomic(file(batch.source), `${JSON.stringify(row)}\n`, { mode: 0o600 });
  };

  return {
    memory,
    cursor: async (source) => read(file(source)),
    cursors: async () => {
      return listDir(dir)
        .filter((n) => n.endsWith(".json"))
        .map((n) => read(join(dir, n)))
        .filter((r): r is CursorRow => r !== undefined)
        .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
    },
    async commit(batch): Promise<CommitOutcome> {
      const current = cursorOf(read(file(batch.source)));
      const from = resumeIndex(batch, current);
      if (from === "done" || from === "elsewhere") return { status: "moved", cursor: current };
      let appended = 0;
      let skipped = 0;
      const pending = batch.entries.slice(from);
      let sent = 0;
      for (const request of requests(pending)) {
        const r = await appendSkippingReserved(memory, batch.session, request);
        appended += r.appended;
        skipped += r.skipped;
        sent += request.length;
        save(batch, pending[sent]?.before ?? batch.end);
      }
      if (pending.length === 0) save(batch, batch.end);
      return { status: "committed", appended, skipped, cursor: batch.end };
    },
    close: () => {},
  };
}

/** Splits entries into appends of at most 256 entries whose JSON fits one request body. */
function requests(entries: CaptureEntry[]): CaptureEntry[][] {
  const out: CaptureEntry[][] = [];
  let current: CaptureEntry[] = [];
  let bytes = 0;
  for (const e of entries) {
    const size = measure(e.entry.content).json + Buffer.byteLength(JSON.stringify(e.entry.meta ?? {})) + Buffer.byteLength(e.entry.idem_key) + 128;
    if (current.length > 0 && (current.length === APPEND_MAX_ENTRIES || bytes + size > BODY_BUDGET)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(e);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * Appends entries; an entry whose key the server holds for different content
 * (a `conflict` naming `entries.<i>.idem_key`) is reserved (I3) and dropped,
 * and the rest is sent again. So is an entry the server refuses as it is
 * (`invalid_input` or `too_large` naming a field of `entries.<i>`: a server
 * of another release may judge a line otherwise than this one did): sending
 * it again could never succeed, and capture never stalls behind one line
 * (DESIGN.md 7.2, issue 29).
 */
async function appendSkippingReserved(memory: Memory, session: string, entries: CaptureEntry[]): Promise<{ appended: number; skipped: number }> {
  let left = entries.map((e) => e.entry);
  let skipped = 0;
  while (left.length > 0) {
    try {
      const r = await memory.append({ session, entries: left });
      const dup = r.entries.filter((e) => e.duplicate).length;
      return { appended: left.length - dup, skipped: skipped + dup };
    } catch (err) {
      const i = refusedEntry(err);
      if (i === undefined || i >= left.length) throw err;
      left = left.filter((_, k) => k !== i);
      skipped++;
    }
  }
  return { appended: 0, skipped };
}

/** The index of the one entry an append's error is about, when no retry of that entry can succeed. */
function refusedEntry(err: unknown): number | undefined {
  if (!isZeroDbError(err)) return undefined;
  const field = err.field ?? "";
  const m =
    err.code === "conflict"
      ? /^entries\.(\d+)\.idem_key$/.exec(field)
      : err.code === "invalid_input" || err.code === "too_large"
        ? /^entries\.(\d+)(\.|$)/.exec(field)
        : null;
  return m ? Number(m[1]) : undefined;
}
