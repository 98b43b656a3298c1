/** diff on SQLite (DESIGN.md section 17): what the live tape gained between two LSNs, in one read transaction. */
import type { Database } from "bun:sqlite";
import { PAGE_DEFAULT } from "../../../limits.ts";
import type { DiffInput } from "../../../schema/ops.ts";
import type { DiffResult } from "../../../schema/results.ts";
import { type TurnRow, sessionsOf } from "../../diff.ts";
import { BOOKKEEPING_FACTS, listsBookkeeping } from "../../ranges.ts";
import { isoTime, prefixRange, verifyRow } from "../_tape.ts";

interface ValueRow {
  lsn: number;
  subject: string | null;
  text: string | null;
  data: string;
  checksum: Uint8Array | null;
}

/** What was added with from < LSN ≤ to (the span diffSpan resolved). */
export function diff(db: Database, tenant: string, input: DiffInput, span: { from: number; to: number }): DiffResult {
  const limit = input.limit ?? PAGE_DEFAULT;
  const { from, to } = span;
  return db
    .transaction((): DiffResult => {
      const names = prefixRange("subject", input.prefix);
      const turnRows = db
        .query(
          `SELECT subject AS name, lsn, bytes FROM tape
           WHERE tenant = ? AND kind = 'turn' AND forgotten_by IS NULL AND lsn > ? AND lsn <= ? AND ${names.sql} ORDER BY subject, lsn`,
        )
        .all(tenant, from, to, ...names.params) as TurnRow[];
      const { sessions, truncated: moreSessions } = sessionsOf(turnRows, limit);
      const hidden = listsBookkeeping(input.prefix) ? null : prefixRange("subject", BOOKKEEPING_FACTS);
      const keys = db
        .query(
          `SELECT subject AS key, count(*) AS sets FROM tape
           WHERE tenant = ? AND kind = 'fact' AND forgotten_by IS NULL AND lsn > ? AND lsn <= ? AND ${names.sql} ${hidden ? `AND NOT (${hidden.sql})` : ""}
           GROUP BY subject ORDER BY subject LIMIT ?`,
        )
        .all(tenant, from, to, ...names.params, ...(hidden?.params ?? []), limit + 1) as { key: string; sets: number }[];
      const valueAt = db.query(
        `SELECT lsn, subject, text, data, checksum FROM tape
         WHERE tenant = ? AND kind = 'fact' AND subject = ? AND forgotten_by IS NULL AND lsn <= ? ORDER BY lsn DESC LIMIT 1`,
      );
      const value = (key: string, at: number) => {
        const row = valueAt.get(tenant, key, at) as ValueRow | null;
        return row ? { value: JSON.parse(verifyRow(db, row).data), lsn: row.lsn } : null;
      };
      const facts = keys.slice(0, limit).map((k) => ({ key: k.key, sets: k.sets, old: value(k.key, from), new: value(k.key, to)! }));
      const forgetRows = db
        .query("SELECT lsn, ts, data FROM tape WHERE tenant = ? AND kind = 'forget' AND lsn > ? AND lsn <= ? ORDER BY lsn")
        .all(tenant, from, to) as { lsn: number; ts: number; data: string }[];
      const kindsOf = db.query("SELECT kind, count(*) AS n FROM tape WHERE forgotten_by = ? GROUP BY kind ORDER BY kind");
      const forgets = forgetRows.map((f) => {
        const data = JSON.parse(f.data) as { hidden: number; lsns: [number, number][] };
        const kinds = Object.fromEntries((kindsOf.all(f.lsn) as { kind: string; n: number }[]).map((k) => [k.kind, k.n]));
        return { lsn: f.lsn, ts: isoTime(f.ts), hidden: data.hidden, kinds, lsns: data.lsns };
      });
      const count = (kind: string) =>
        (
          db
            .query("SELECT count(*) AS n FROM tape WHERE tenant = ? AND kind = ? AND forgotten_by IS NULL AND lsn > ? AND lsn <= ?")
            .get(tenant, kind, from, to) as {
            n: number;
          }
        ).n;
      return { from, to, sessions, facts, forgets, links: count("link"), objects: count("object"), truncated: moreSessions || keys.length > limit };
    })
    .deferred();
}
