/**
 * Capture cursors on PostgreSQL (DESIGN.md 7.2): a batch and the cursor that
 * covers it commit in one transaction. The transaction takes the LSN lock
 * first (every writer's lock, _tape.ts), then reads the cursor row again
 * under it, so overlapping hooks, on any machine, never append a line twice.
 */
import { checkCaptureBatch } from "../../schema/capture-batch.ts";
import { type CaptureBatch, type CommitOutcome, type CursorRow, cursorOf, resumeIndex } from "../capture-cursors.ts";
import type { CaptureCursors } from "../types.ts";
import { type Q, keyHeld, lockLsns } from "./_tape.ts";
import { appendIn, prepare } from "./turns.ts";

function toRow(r: Record<string, string>): CursorRow {
  return {
    source: r.source!,
    session: r.session!,
    path: r.path!,
    offset: Number(r.offset),
    position: Number(r.position),
    chunk: Number(r.chunk),
    updated: Number(r.updated),
  };
}

async function getCursor(tx: Q, tenant: string, source: string, lock = false): Promise<CursorRow | undefined> {
  const rows = lock
    ? await tx`SELECT source, session, path, "offset", position, chunk, updated FROM capture_cursors WHERE tenant = ${tenant} AND source = ${source} FOR UPDATE`
    : await tx`SELECT source, session, path, "offset", position, chunk, updated FROM capture_cursors WHERE tenant = ${tenant} AND source = ${source}`;
  return rows.length > 0 ? toRow(rows[0]) : undefined;
}

/** Appends a batch and moves its cursor in one transaction (see CaptureCursors.commit). */
async function commitCapture(sql: Q, tenant: string, batch: CaptureBatch): Promise<CommitOutcome> {
  return sql.begin(async (tx): Promise<CommitOutcome> => {
    // The LSN lock serializes this with every other write; the cursor row's own lock then makes the read-modify-write explicit.
    const lsns = await lockLsns(tx);
    const current = cursorOf(await getCursor(tx, tenant, batch.source, true));
    const from = resumeIndex(batch, current);
    if (from === "done" || from === "elsewhere") return { status: "moved", cursor: current };
    const fresh = [];
    for (const e of batch.entries.slice(from)) if (!(await keyHeld(tx, tenant, e.entry.idem_key))) fresh.push(e);
    // appendIn takes the same lock again (a no-op in this transaction) and writes the counter back itself.
    await lsns.release();
    if (fresh.length > 0) await appendIn(tx, tenant, batch.session, prepare({ session: batch.session, entries: fresh.map((e) => e.entry) } as never));
    await tx`INSERT INTO capture_cursors (tenant, source, session, path, "offset", position, chunk, updated)
      VALUES (${tenant}, ${batch.source}, ${batch.session}, ${batch.path}, ${batch.end.offset}, ${batch.end.position}, ${batch.end.chunk}, ${Date.now()})
      ON CONFLICT (tenant, source) DO UPDATE SET path = excluded.path, "offset" = excluded."offset", position = excluded.position,
        chunk = excluded.chunk, updated = excluded.updated`;
    return { status: "committed", appended: fresh.length, skipped: batch.entries.length - from - fresh.length, cursor: batch.end };
  });
}

/** The CaptureCursors of one tenant. */
export function pgCapture(sql: Q, tenant: string, run: <T>(fn: () => Promise<T>) => Promise<T>): CaptureCursors {
  return {
    cursor: (source) => run(() => getCursor(sql, tenant, source)),
    cursors: () =>
      run(async () =>
        (await sql`SELECT source, session, path, "offset", position, chunk, updated FROM capture_cursors WHERE tenant = ${tenant} ORDER BY source`).map(toRow),
      ),
    commit: (batch) =>
      run(() => {
        // Checked before any lock: a bad batch names its field and writes nothing (I6).
        checkCaptureBatch(batch);
        return commitCapture(sql, tenant, batch);
      }),
  };
}
