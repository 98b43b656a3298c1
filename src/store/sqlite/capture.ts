/**
 * Capture cursors on the SQLite engine (DESIGN.md 7.2): a batch of transcript
 * entries and the cursor that covers them commit in one BEGIN IMMEDIATE
 * transaction, and the cursor is re-read inside it, so overlapping hooks
 * never append the same line twice and a crash never loses or repeats one.
 */
import type { Database } from "bun:sqlite";
import { CONTENT_MAX_BYTES, IDEM_KEY_MAX_BYTES, JSON_MAX_DEPTH, META_MAX_BYTES } from "../../limits.ts";
import { CaptureBatchInput } from "../../schema/capture.ts";
import { Role } from "../../schema/common.ts";
import { parseInput } from "../../schema/parse.ts";
import { type CaptureBatch, type CommitOutcome, type CursorRow, cursorOf, resumeIndex } from "../capture.ts";
import type { CaptureCursors } from "../types.ts";
import { heldKeys } from "./_tape.ts";
import { append } from "./turns.ts";

const COLUMNS = "source, session, path, offset, position, chunk, updated";

/** The cursor row of one source, or undefined. */
export function getCursor(db: Database, tenant: string, source: string): CursorRow | undefined {
  return (db.query(`SELECT ${COLUMNS} FROM capture_cursors WHERE tenant = ? AND source = ?`).get(tenant, source) as CursorRow | null) ?? undefined;
}

/** Every cursor row of a tenant, by source. */
export function listCursors(db: Database, tenant: string): CursorRow[] {
  return db.query(`SELECT ${COLUMNS} FROM capture_cursors WHERE tenant = ? ORDER BY source`).all(tenant) as CursorRow[];
}

/**
 * Appends a batch and moves its source's cursor to the batch's end, in one
 * BEGIN IMMEDIATE transaction. The cursor is read again under the write lock
 * (resumeIndex): when another hook stored a prefix of the batch, only the rest
 * is appended; when it stored all of it, or the cursor is somewhere the batch
 * does not cover, nothing is written and the caller reads again from there.
 * An entry whose idempotency key the tenant already holds is skipped, not
 * rewritten: the key stays reserved after a forget (I3), so a replayed
 * capture never brings forgotten content back.
 */
export function commitCapture(db: Database, tenant: string, batch: CaptureBatch): CommitOutcome {
  return db
    .transaction((): CommitOutcome => {
      const current = cursorOf(getCursor(db, tenant, batch.source));
      const from = resumeIndex(batch, current);
      if (from === "done" || from === "elsewhere") return { status: "moved", cursor: current };
      // Forgotten keys are looked up by their digest only when the tenant has forgotten anything.
      const forgotten = db.query("SELECT 1 FROM tape WHERE tenant = ? AND idem_digest IS NOT NULL LIMIT 1").get(tenant) !== null;
      const held = heldKeys(
        db,
        tenant,
        batch.entries.slice(from).map((e) => e.entry.idem_key),
        { forgotten },
      );
      const unheld: number[] = [];
      for (let i = from; i < batch.entries.length; i++) if (!held.has(batch.entries[i]!.entry.idem_key)) unheld.push(i);
      const fresh = unheld.map((i) => batch.entries[i]!);
      // Hashes and index text computed where the batch was read, when they were, for the entries written.
      const prepared = batch.prepared?.length === batch.entries.length ? unheld.map((i) => batch.prepared![i]!) : undefined;
      // Nested in this transaction, append runs as a savepoint: it commits with the cursor or not at all.
      // The keys were checked just above, under the same write lock; a key twice in the batch (never, from
      // capture) is left to append's own check, which tells a repeat from a conflict.
      const keysChecked = new Set(fresh.map((e) => e.entry.idem_key)).size === fresh.length;
      if (fresh.length > 0) append(db, tenant, { session: batch.session, entries: fresh.map((e) => e.entry) }, { keysChecked, prepared });
      db.query(
        `INSERT INTO capture_cursors (tenant, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant, source) DO UPDATE SET path = excluded.path, offset = excluded.offset,
           position = excluded.position, chunk = excluded.chunk, updated = excluded.updated`,
      ).run(tenant, batch.source, batch.session, batch.path, batch.end.offset, batch.end.position, batch.end.chunk, Date.now());
      return { status: "committed", appended: fresh.length, skipped: batch.entries.length - from - fresh.length, cursor: batch.end };
    })
    .immediate();
}

/** The CaptureCursors of one tenant; `run` is the store's runner (closed check, error mapping). */
export function sqliteCapture(db: Database, tenant: string, run: <T>(fn: () => T) => Promise<T>): CaptureCursors {
  return {
    cursor: (source) => run(() => getCursor(db, tenant, source)),
    cursors: () => run(() => listCursors(db, tenant)),
    commit: (batch) =>
      run(() => {
        // Checked before the write lock: a bad batch names its field and writes nothing (I6).
        checkBatch(batch);
        return commitCapture(db, tenant, batch);
      }),
  };
}

/**
 * The batch schema's check (CaptureBatchInput), with its entries checked by
 * hand: zod's per-entry walk and copy cost about a tenth of a backfill. The
 * hand check passes only entries the schema passes; anything it does not
 * pass is checked by the schema itself, so the error, and its field, are
 * the schema's.
 */
export function checkBatch(batch: CaptureBatch): void {
  if (!Array.isArray(batch.entries) || !batch.entries.every(plainEntry)) {
    parseInput(CaptureBatchInput, batch);
    return;
  }
  parseInput(CaptureBatchInput, { ...batch, entries: [] });
}

const ROLES = new Set<string>(Role.options);
const ENTRY_KEYS = new Set(["role", "content", "meta", "idem_key"]);

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/** `{entry, before}` as the schema takes it: strict objects, a turn within its limits, a cursor of safe integers. */
function plainEntry(e: unknown): boolean {
  if (!isPlain(e) || !isPlain(e.entry) || !isCursor(e.before)) return false;
  const keys = Object.keys(e);
  if (keys.length !== 2 || !("entry" in e)) return false;
  const { entry } = e;
  for (const k of Object.keys(entry)) if (!ENTRY_KEYS.has(k)) return false;
  const { role, content, meta, idem_key: key } = entry;
  if (typeof role !== "string" || !ROLES.has(role)) return false;
  if (typeof content !== "string" || !content.isWellFormed() || Buffer.byteLength(content, "utf8") > CONTENT_MAX_BYTES) return false;
  if (typeof key !== "string" || !key.isWellFormed()) return false;
  const keyBytes = Buffer.byteLength(key, "utf8");
  if (keyBytes < 1 || keyBytes > IDEM_KEY_MAX_BYTES) return false;
  if (meta === undefined) return true;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta) || !isJson(meta, 0)) return false;
  return Buffer.byteLength(JSON.stringify(meta), "utf8") <= META_MAX_BYTES;
}

/** jsonProblem(value) === undefined, without building the path of a problem (it allocated one per key). */
function isJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
      return value.isWellFormed();
    case "number":
      return Number.isFinite(value);
    case "boolean":
      return true;
    case "object": {
      if (value === null) return true;
      if (depth >= JSON_MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isJson(value[i], depth + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const k of Object.keys(value)) if (!k.isWellFormed() || !isJson((value as Record<string, unknown>)[k], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

function isCursor(c: unknown): boolean {
  if (!isPlain(c)) return false;
  const keys = Object.keys(c);
  if (keys.length !== 3) return false;
  for (const k of ["offset", "position", "chunk"]) {
    const v = c[k];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) return false;
  }
  return true;
}
