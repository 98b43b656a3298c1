/**
 * Capture cursors on the SQLite engine (DESIGN.md 7.2): a batch of transcript
 * entries and the cursor that covers them commit in one BEGIN IMMEDIATE
 * transaction, and the cursor is re-read inside it, so overlapping hooks
 * never append the same line twice and a crash never loses or repeats one.
 */
import type { Database } from "bun:sqlite";
import { checkCaptureBatch } from "../../schema/capture-batch.ts";
import { type CaptureBatch, type CommitOutcome, type CursorRow, cursorOf, resumeIndex } from "../capture-cursors.ts";
import type { CaptureCursors } from "../types.ts";
import { heldKeys } from "./_tape.ts";
import { storeIdOf } from "./identity.ts";
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
      if (fresh.length > 0) {
        const checksumsFor = prepared && batch.preparedFor !== undefined ? { checksumsFor: batch.preparedFor } : {};
        append(db, tenant, { session: batch.session, entries: fresh.map((e) => e.entry) }, { keysChecked, prepared, ...checksumsFor });
      }
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
    storeId: storeIdOf(db),
    cursor: (source) => run(() => getCursor(db, tenant, source)),
    cursors: () => run(() => listCursors(db, tenant)),
    commit: (batch) =>
      run(() => {
        // Checked before the write lock: a bad batch names its field and writes nothing (I6).
        checkCaptureBatch(batch);
        return commitCapture(db, tenant, batch);
      }),
  };
}
