/**
 * export and import of the tape as records (DESIGN.md 6.3) on PostgreSQL, in
 * the format the SQLite engine writes and reads (src/schema/tape.ts), so a
 * laptop's export restores onto a team server (DESIGN.md 12). Object bytes do
 * not travel with the tape (as on SQLite today).
 */
import { ZeroDbError } from "../../errors.ts";
import type { TapeRecord } from "../../schema/tape.ts";
import { checkPayload } from "../import-check.ts";
import { forgetRow, forgottenRow, importLines, liveRow, orphanForgotten } from "../import-records.ts";
import { type Q, insertRow, isoTime } from "./_tape.ts";
import { decodeJson, decodeText } from "./nul.ts";

/** Rows read per round trip while exporting. */
const PAGE = 1000;

/**
 * Every tape row in LSN order, as records, from one REPEATABLE READ snapshot
 * on a reserved connection: a forget committing meanwhile cannot leave the
 * export holding a record live and a forget that claims to have hidden it.
 */
export async function* exportRows(sql: Q, tenant?: string, from = 0): AsyncGenerator<TapeRecord> {
  const conn = await sql.reserve();
  try {
    await conn`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`;
    // Pages by LSN from `from` (export --after): a range of the primary key, never the rows before it.
    let after = from;
    for (;;) {
      const rows = tenant
        ? await conn`SELECT * FROM tape WHERE tenant = ${tenant} AND lsn > ${after} ORDER BY lsn LIMIT ${PAGE}`
        : await conn`SELECT * FROM tape WHERE lsn > ${after} ORDER BY lsn LIMIT ${PAGE}`;
      for (const row of rows) yield toRecord(row);
      if (rows.length < PAGE) break;
      after = Number(rows[rows.length - 1].lsn);
    }
    await conn`COMMIT`;
  } finally {
    conn.release();
  }
}

/** The fields a live row's `data` holds, by kind (turns.ts, facts.ts, forget.ts, objects.ts write them). */
interface RowData {
  role: "user" | "assistant" | "tool" | "system" | "note";
  meta?: Record<string, unknown>;
  value: unknown;
  hidden: number;
  lsns: [number, number][];
  url: string;
  title?: string | null;
  note?: string | null;
  size: number;
  type: string;
  name?: string | null;
}

function toRecord(row: Record<string, unknown>): TapeRecord {
  const at = { lsn: Number(row.lsn), tenant: row.tenant as string, ts: isoTime(row.ts as string) };
  const kind = row.kind as TapeRecord["kind"];
  if (row.forgotten_by !== null) {
    // Only what keeps the key reserved (I3): never the key, never the operation's hash.
    const digest = row.idem_digest ? { idem_digest: Buffer.from(row.idem_digest as Uint8Array).toString("hex") } : {};
    return { ...at, kind: kind as "turn", forgotten_by: Number(row.forgotten_by), ...digest };
  }
  const base = {
    ...at,
    ...(row.idem_key !== null ? { idem_key: row.idem_key as string } : {}),
    ...(row.op_hash ? { op_hash: Buffer.from(row.op_hash as Uint8Array).toString("hex") } : {}),
  };
  const data = decodeJson(row.data as RowData);
  switch (kind) {
    case "turn":
      return { ...base, kind: "turn", session: row.subject as string, role: data.role, content: decodeText(row.text as string), meta: data.meta ?? {} };
    case "fact":
      return { ...base, kind: "fact", key: row.subject as string, value: data.value };
    case "forget":
      return { ...base, kind: "forget", hidden: data.hidden, lsns: data.lsns };
    case "link":
      return { ...base, kind: "link", url: data.url, title: data.title ?? null, note: data.note ?? null };
    case "object":
      return { ...base, kind: "object", object: row.subject as string, size: data.size, type: data.type, name: data.name ?? null };
  }
}

/**
 * Restores records into an empty store in one transaction holding the LSN
 * lock, keeping their LSNs, deriving sessions, facts and the word index as
 * live writes do, and moving the LSN counter past the last one (I1).
 */
export async function importRecords(sql: Q, records: AsyncIterable<unknown>): Promise<{ records: number; last_lsn: number }> {
  return sql.begin((tx) => importInto(tx, records));
}

/** importRecords inside the caller's transaction (a restore publishes its objects' bytes in the same one). */
export async function importInto(tx: Q, records: AsyncIterable<unknown>): Promise<{ records: number; last_lsn: number }> {
  const [counter] = await tx`SELECT last FROM lsn_counter WHERE id = 1 FOR UPDATE`;
  const [existing] = await tx`SELECT count(*) AS n FROM tape`;
  if (Number(existing.n) > 0) throw new ZeroDbError("conflict", "import needs an empty store: this one already holds records");
  let last = 0;
  let line = 0;
  for await (const next of importLines(records)) {
    ({ line } = next);
    last = next.rec.lsn;
    checkPayload(next.rec, next.at);
    await restore(tx, next.rec, next.at);
  }
  // Every forgotten record names a forget of its tenant: a crafted export cannot hide rows behind one that never happened.
  const [orphan] = await tx`SELECT t.lsn FROM tape t WHERE t.forgotten_by IS NOT NULL AND NOT EXISTS
    (SELECT 1 FROM tape f WHERE f.lsn = t.forgotten_by AND f.kind = 'forget' AND f.tenant = t.tenant) LIMIT 1`;
  if (orphan) throw orphanForgotten(Number(orphan.lsn));
  await tx`UPDATE lsn_counter SET last = ${Math.max(last, Number(counter.last))} WHERE id = 1`;
  return { records: line, last_lsn: last };
}

/** Writes one record's row and what it derives: a turn's session, a fact's live value, a forget's time on what it hid. */
async function restore(tx: Q, rec: TapeRecord, at: string): Promise<void> {
  if ("forgotten_by" in rec) {
    const row = forgottenRow(rec);
    await insertRow(tx, rec.lsn, row);
    await tx`UPDATE tape SET forgotten_by = ${rec.forgotten_by}, idem_digest = ${row.idemDigest ? Buffer.from(row.idemDigest) : null}, sclass = 0 WHERE lsn = ${rec.lsn}`;
    return;
  }
  if (rec.kind === "forget") {
    // The records it hid come before it (their LSNs are lower) and name it.
    const hidden = (await tx`SELECT lsn FROM tape WHERE forgotten_by = ${rec.lsn} ORDER BY lsn`).map((r: { lsn: string }) => Number(r.lsn));
    await insertRow(tx, rec.lsn, forgetRow(rec, hidden, at));
    // A forgotten record keeps the forget's time, not its own (as forget does).
    await tx`UPDATE tape SET ts = ${Date.parse(rec.ts)} WHERE forgotten_by = ${rec.lsn}`;
    return;
  }
  const row = liveRow(rec);
  await insertRow(tx, rec.lsn, row);
  if (rec.kind === "turn") {
    await tx`INSERT INTO sessions (tenant, name, turns, first_lsn, last_lsn, bytes) VALUES (${rec.tenant}, ${rec.session}, 1, ${rec.lsn}, ${rec.lsn}, ${row.bytes})
      ON CONFLICT (tenant, name) DO UPDATE SET turns = sessions.turns + 1, last_lsn = excluded.last_lsn, bytes = sessions.bytes + excluded.bytes`;
  } else if (rec.kind === "fact") {
    await tx`INSERT INTO facts (tenant, key, lsn) VALUES (${rec.tenant}, ${rec.key}, ${rec.lsn}) ON CONFLICT (tenant, key) DO UPDATE SET lsn = excluded.lsn`;
  }
}
