/** append, read and sessions on the PostgreSQL tape (DESIGN.md section 5). */
import { PAGE_DEFAULT, READ_PAGE_MAX_BYTES } from "../../limits.ts";
import type { AppendInput, ReadInput, SessionsInput } from "../../schema/ops.ts";
import type { AppendResult, ReadResult, SessionsResult, Turn } from "../../schema/results.ts";
import { turnClass } from "../../search/search-class.ts";
import { prefixEnd } from "../ranges.ts";
import { ZeroDbError } from "../../errors.ts";
import { type NewRow, type Q, insertRows, isoTime, lockLsns, priorWrites } from "./_tape.ts";
import { contentHash, opHash } from "../hashes.ts";
import { decodeJson, decodeText } from "./nul.ts";
import { boundOf } from "../as-of.ts";

/** Appends a batch in one transaction holding the LSN lock: all entries or none. */
export async function append(sql: Q, tenant: string, input: AppendInput): Promise<AppendResult> {
  const prepared = prepare(input);
  return sql.begin((tx) => appendIn(tx, tenant, input.session, prepared));
}

/** An entry hashed and shaped for the tape, before any lock is taken. */
export type Prepared = ReturnType<typeof prepare>[number];

/** Hashes and shapes a batch's entries (outside the transaction, to keep the lock short). */
export function prepare(input: AppendInput) {
  return input.entries.map((e) => {
    const meta = e.meta as Record<string, unknown> | undefined;
    return {
      idem_key: e.idem_key,
      content: e.content,
      bytes: Buffer.byteLength(e.content, "utf8"),
      contentHash: contentHash(e.content),
      opHash: e.idem_key ? opHash.turn(input.session, e.role, e.content, meta) : null,
      data: meta ? { role: e.role, meta } : { role: e.role },
      sclass: turnClass(e.role, meta) as number,
    };
  });
}

/** The body of an append inside a transaction (capture commits reuse it). */
export async function appendIn(tx: Q, tenant: string, session: string, prepared: Prepared[]): Promise<AppendResult> {
  const lsns = await lockLsns(tx);
  const out: AppendResult["entries"] = [];
  const ts = Date.now();
  // Every key of the batch looked up at once; a key repeated within the batch answers from the batch (I3).
  const held = await priorWrites(tx, tenant, [...new Set(prepared.map((e) => e.idem_key).filter((k): k is string => k !== undefined))]);
  const rows: { lsn: number; row: NewRow }[] = [];
  let bytes = 0;
  for (const [i, e] of prepared.entries()) {
    if (e.idem_key) {
      const prior = held.get(e.idem_key);
      if (prior !== undefined) {
        // A forgotten key (no hash kept) replays as a duplicate; a live one must name the same operation.
        if (!prior.forgotten && (prior.opHash === null || Buffer.compare(prior.opHash, Buffer.from(e.opHash!)) !== 0))
          throw new ZeroDbError("conflict", `entries.${i}.idem_key: this idempotency key was already used for a different write`, {
            field: `entries.${i}.idem_key`,
          });
        out.push({ lsn: prior.lsn, duplicate: true });
        continue;
      }
    }
    const lsn = lsns.next();
    const row: NewRow = {
      tenant,
      kind: "turn",
      ts,
      subject: session,
      idemKey: e.idem_key ?? null,
      opHash: e.opHash,
      contentHash: e.contentHash,
      bytes: e.bytes,
      text: e.content,
      data: e.data,
      sclass: e.sclass,
    };
    rows.push({ lsn, row });
    if (e.idem_key) held.set(e.idem_key, { lsn, opHash: Buffer.from(e.opHash!), forgotten: false });
    out.push({ lsn, duplicate: false });
    bytes += e.bytes;
  }
  await insertRows(tx, rows);
  if (rows.length > 0) {
    const first = rows[0]!.lsn;
    const last = rows[rows.length - 1]!.lsn;
    await tx`INSERT INTO sessions (tenant, name, turns, first_lsn, last_lsn, bytes) VALUES (${tenant}, ${session}, ${rows.length}, ${first}, ${last}, ${bytes})
      ON CONFLICT (tenant, name) DO UPDATE SET turns = sessions.turns + excluded.turns, last_lsn = excluded.last_lsn, bytes = sessions.bytes + excluded.bytes`;
  }
  await lsns.release();
  return { entries: out };
}

/** Turns a tape row of kind turn into the Turn shape. */
export function rowToTurn(row: Record<string, unknown>): Turn {
  const data = decodeJson(row.data as { role: Turn["role"]; meta?: Record<string, unknown> });
  return {
    lsn: Number(row.lsn),
    session: row.subject as string,
    role: data.role,
    content: decodeText(row.text as string),
    meta: data.meta ?? {},
    ...(row.idem_key ? { idem_key: row.idem_key as string } : {}),
    ts: isoTime(row.ts as string),
  };
}

/**
 * A page of a session after an LSN, at most `limit` turns and
 * READ_PAGE_MAX_BYTES of content (always at least one turn). Both statements
 * run in one REPEATABLE READ transaction: one snapshot (I4). Because LSNs are
 * handed out under a lock held to commit (_tape.ts lockLsns), no turn with a
 * lower LSN than one this snapshot sees can commit later.
 */
export async function read(sql: Q, tenant: string, input: ReadInput): Promise<ReadResult> {
  const limit = input.limit ?? PAGE_DEFAULT;
  const after = input.after ?? 0;
  // A resolved as_of bounds the LSNs (DESIGN.md section 17).
  const upto = boundOf(input) ?? Number.MAX_SAFE_INTEGER;
  return sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx): Promise<ReadResult> => {
    const sizes = await tx`SELECT lsn, bytes FROM tape
      WHERE tenant = ${tenant} AND kind = 'turn' AND subject = ${input.session} AND forgotten_by IS NULL AND lsn > ${after} AND lsn <= ${upto}
      ORDER BY lsn LIMIT ${limit + 1}`;
    let take = 0;
    let bytes = 0;
    while (take < Math.min(limit, sizes.length) && (take === 0 || bytes + Number(sizes[take].bytes) <= READ_PAGE_MAX_BYTES)) {
      bytes += Number(sizes[take].bytes);
      take++;
    }
    if (take === 0) return { turns: [], next: null };
    const rows = await tx`SELECT lsn, ts, subject, idem_key, text, data FROM tape
      WHERE tenant = ${tenant} AND kind = 'turn' AND subject = ${input.session} AND forgotten_by IS NULL AND lsn > ${after} AND lsn <= ${sizes[take - 1].lsn}
      ORDER BY lsn`;
    const turns = rows.map(rowToTurn);
    return { turns, next: take < sizes.length ? turns[turns.length - 1]!.lsn : null };
  });
}

/** Sessions by name (byte order), after a name, under a prefix. */
export async function sessions(sql: Q, tenant: string, input: SessionsInput): Promise<SessionsResult> {
  const limit = input.limit ?? PAGE_DEFAULT;
  const prefix = input.prefix ?? "";
  const end = prefix ? prefixEnd(prefix) : null;
  const rows = await sql`SELECT name, turns, first_lsn, last_lsn, bytes FROM sessions
    WHERE tenant = ${tenant} AND name >= ${prefix} AND (${end}::text IS NULL OR name < ${end}) AND name > ${input.after ?? ""}
    ORDER BY name LIMIT ${limit + 1}`;
  return sessionsPage(rows, limit);
}

/** A page of session rows (name, turns, first and last LSN, bytes), fetched one past `limit` to know of a next page. */
export function sessionsPage(rows: Record<string, string>[], limit: number): SessionsResult {
  const page = rows.slice(0, limit).map((r) => ({
    name: r.name!,
    turns: Number(r.turns),
    first_lsn: Number(r.first_lsn),
    last_lsn: Number(r.last_lsn),
    bytes: Number(r.bytes),
  }));
  return { sessions: page, next: rows.length > limit ? page[page.length - 1]!.name : null };
}
