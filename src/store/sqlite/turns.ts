/** append, read and sessions on the SQLite tape (DESIGN.md section 5). */
import type { Database } from "bun:sqlite";
import { PAGE_DEFAULT, READ_PAGE_MAX_BYTES } from "../../limits.ts";
import type { AppendInput, ReadInput, SessionsInput } from "../../schema/ops.ts";
import type { AppendResult, ReadResult, SessionsResult, Turn } from "../../schema/results.ts";
import { turnClass } from "../../search/search-class.ts";
import { type NewRow, insertRow, insertRows, isoTime, prefixRange, priorWrite, verifyRow } from "./_tape.ts";
import { storeIdOf } from "./identity.ts";
import type { PreparedTurn } from "../capture-cursors.ts";
import { boundOf } from "../as-of.ts";
import { contentHash, opHash, turnData } from "../hashes.ts";

/**
 * Appends a batch in one BEGIN IMMEDIATE transaction: all entries or none.
 * `keysChecked`: the caller already found, in the transaction this one nests
 * in, that no entry's idempotency key is held (capture.ts), so they are not
 * looked up a second time. `prepared`: each entry's hashes, data, index text
 * and (for `checksumsFor`, this store's id) checksum, computed already by
 * prepareTurns (capture sync's read-ahead worker). The new rows go in a few
 * multi-row statements (insertRows); a batch that names one idempotency key
 * twice is written row by row, so the second sees the first (I3).
 */
export function append(
  db: Database,
  tenant: string,
  input: AppendInput,
  opts: { keysChecked?: boolean; prepared?: PreparedTurn[]; checksumsFor?: string } = {},
): AppendResult {
  // Hashing happens before the write lock is taken, to keep it short.
  const checksums = opts.checksumsFor !== undefined && opts.checksumsFor === storeIdOf(db);
  const rows = input.entries.map((e, i): NewRow & { idem: string | undefined } => {
    const meta = e.meta as Record<string, unknown> | undefined;
    const done = opts.prepared?.[i];
    // A prepared checksum covers the prepared data: the two are taken together or not at all.
    const own = checksums && done?.checksum !== undefined;
    return {
      idem: e.idem_key,
      tenant,
      kind: "turn",
      // Set under the write lock: times follow LSNs (as_of finds points by time).
      ts: 0,
      subject: input.session,
      idemKey: e.idem_key ?? null,
      opHash: e.idem_key ? (done?.opHash ?? opHash.turn(input.session, e.role, e.content, meta)) : null,
      contentHash: done?.contentHash ?? contentHash(e.content),
      bytes: done?.bytes ?? Buffer.byteLength(e.content, "utf8"),
      text: e.content,
      data: own ? done!.data : turnData(e.role, meta),
      sclass: turnClass(e.role, meta),
      ...(done?.index !== undefined ? { index: done.index } : {}),
      ...(own ? { checksum: done!.checksum! } : {}),
    };
  });
  const keys = rows.flatMap((r) => (r.idem ? [r.idem] : []));
  const byRow = !opts.keysChecked && new Set(keys).size !== keys.length;
  return db
    .transaction((): AppendResult => {
      const out: AppendResult["entries"] = [];
      const fresh: NewRow[] = [];
      const at: number[] = [];
      const ts = Date.now();
      for (const [i, r] of rows.entries()) {
        r.ts = ts;
        if (r.idem && !opts.keysChecked) {
          const prior = priorWrite(db, { tenant, idemKey: r.idem, opHash: r.opHash!, field: `entries.${i}.idem_key` });
          if (prior !== undefined) {
            out.push({ lsn: prior, duplicate: true });
            continue;
          }
        }
        const { idem: _idem, ...row } = r;
        if (byRow) out.push({ lsn: insertRow(db, row), duplicate: false });
        else {
          at.push(out.length);
          out.push({ lsn: 0, duplicate: false });
          fresh.push(row);
        }
      }
      if (!byRow) for (const [k, lsn] of insertRows(db, fresh).entries()) out[at[k]!]!.lsn = lsn;
      let added = 0;
      let bytes = 0;
      let first = 0;
      let last = 0;
      for (const [i, e] of out.entries()) {
        if (e.duplicate) continue;
        if (first === 0) first = e.lsn;
        last = e.lsn;
        added++;
        bytes += rows[i]!.bytes;
      }
      if (added > 0) {
        db.query(
          `INSERT INTO sessions (tenant, name, turns, first_lsn, last_lsn, bytes) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant, name) DO UPDATE SET turns = turns + excluded.turns,
           last_lsn = excluded.last_lsn, bytes = bytes + excluded.bytes`,
        ).run(tenant, input.session, added, first, last, bytes);
      }
      return { entries: out };
    })
    .immediate();
}

interface TurnRow {
  lsn: number;
  ts: number;
  subject: string;
  idem_key: string | null;
  text: string;
  data: string;
  checksum: Uint8Array | null;
}

/** Turns a tape row of kind turn into the Turn shape, after checking its checksum. */
export function rowToTurn(db: Database, row: TurnRow): Turn {
  verifyRow(db, row);
  const data = JSON.parse(row.data) as { role: Turn["role"]; meta?: Record<string, unknown> };
  return {
    lsn: row.lsn,
    session: row.subject,
    role: data.role,
    content: row.text,
    meta: data.meta ?? {},
    ...(row.idem_key ? { idem_key: row.idem_key } : {}),
    ts: isoTime(row.ts),
  };
}

/**
 * A page of a session after an LSN. The page stops at `limit` turns or at
 * READ_PAGE_MAX_BYTES of content (always at least one turn), whichever comes
 * first; both statements run in one read transaction, so one snapshot (I4).
 * A resolved `as_of` bounds the LSNs (DESIGN.md section 17).
 */
export function read(db: Database, tenant: string, input: ReadInput): ReadResult {
  const limit = input.limit ?? PAGE_DEFAULT;
  const upto = boundOf(input) ?? Number.MAX_SAFE_INTEGER;
  return db
    .transaction((): ReadResult => {
      const sizes = db
        .query(
          `SELECT lsn, bytes FROM tape
         WHERE tenant = ? AND kind = 'turn' AND subject = ? AND forgotten_by IS NULL AND lsn > ? AND lsn <= ?
         ORDER BY lsn LIMIT ?`,
        )
        .all(tenant, input.session, input.after ?? 0, upto, limit + 1) as { lsn: number; bytes: number }[];
      let take = 0;
      let bytes = 0;
      while (take < Math.min(limit, sizes.length) && (take === 0 || bytes + sizes[take]!.bytes <= READ_PAGE_MAX_BYTES)) {
        bytes += sizes[take]!.bytes;
        take++;
      }
      if (take === 0) return { turns: [], next: null };
      const rows = db
        .query(
          `SELECT lsn, ts, subject, idem_key, text, data, checksum FROM tape
         WHERE tenant = ? AND kind = 'turn' AND subject = ? AND forgotten_by IS NULL AND lsn > ? AND lsn <= ?
         ORDER BY lsn`,
        )
        .all(tenant, input.session, input.after ?? 0, sizes[take - 1]!.lsn) as TurnRow[];
      const turns = rows.map((r) => rowToTurn(db, r));
      return { turns, next: take < sizes.length ? turns[turns.length - 1]!.lsn : null };
    })
    .deferred();
}

/** Sessions by name, after a name, under a prefix. */
export function sessions(db: Database, tenant: string, input: SessionsInput): SessionsResult {
  const limit = input.limit ?? PAGE_DEFAULT;
  const range = prefixRange("name", input.prefix);
  const rows = db
    .query(
      `SELECT name, turns, first_lsn, last_lsn, bytes FROM sessions
       WHERE tenant = ? AND ${range.sql} AND name > ? ORDER BY name LIMIT ?`,
    )
    .all(tenant, ...range.params, input.after ?? "", limit + 1) as SessionsResult["sessions"];
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  return { sessions: page, next: more ? page[page.length - 1]!.name : null };
}
