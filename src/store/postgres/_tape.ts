/**
 * Writing tape rows on PostgreSQL: LSNs allocated under one row lock, and
 * idempotency keys checked under it (DESIGN.md D4, I1, I3, I4).
 */
import type { SQL } from "bun";
import { ZeroDbError } from "../../errors.ts";
import { idemDigest as sharedIdemDigest } from "../hashes.ts";
import { encodeJson, encodeText } from "./nul.ts";
import { wordsOf } from "./words.ts";

/** A query runner: the pool or a transaction. */
export type Q = SQL;

/** A tape row to insert. */
export interface NewRow {
  tenant: string;
  kind: "turn" | "fact" | "forget" | "link" | "object";
  ts: number;
  subject: string | null;
  idemKey: string | null;
  opHash: Uint8Array | null;
  contentHash: Uint8Array | null;
  bytes: number;
  text: string | null;
  data: unknown;
  sclass: number;
}

/**
 * Locks the LSN counter for the rest of the transaction and returns a function
 * that hands out the next LSNs. The lock is the counter row's: every writer
 * takes it first thing, so writers run one at a time, the transaction holding
 * LSN n commits (or rolls back) before another reads the counter, and no
 * reader can ever see LSN n + 1 without n (I4). The counter is written back by
 * `release`, inside the same transaction. A rolled-back transaction leaves the
 * counter where it was, and no committed LSN is ever handed out again (I1).
 */
export async function lockLsns(tx: Q): Promise<{ next(): number; release(): Promise<void> }> {
  const [row] = await tx`SELECT last FROM lsn_counter WHERE id = 1 FOR UPDATE`;
  const start = Number(row.last);
  let last = start;
  return {
    next: () => ++last,
    release: async () => {
      if (last !== start) await tx`UPDATE lsn_counter SET last = ${last} WHERE id = 1`;
    },
  };
}

/**
 * A row's text and data as the columns hold them (NUL encoded, nul.ts) and
 * its word index, made from the text as given.
 */
function columns(row: NewRow): { text: string | null; data: string | null; words: string | null } {
  return {
    text: row.text === null ? null : encodeText(row.text),
    data: row.data === null ? null : encodeJson(JSON.stringify(row.data)),
    words: row.text === null ? null : wordsOf(row.text),
  };
}

/** Inserts one tape row at `lsn`, with its word index. */
export async function insertRow(tx: Q, lsn: number, row: NewRow): Promise<void> {
  const { text, data, words } = columns(row);
  await tx`INSERT INTO tape (lsn, tenant, kind, ts, subject, idem_key, op_hash, content_hash, bytes, text, data, sclass, words)
    VALUES (${lsn}, ${row.tenant}, ${row.kind}, ${row.ts}, ${row.subject}, ${row.idemKey}, ${row.opHash ? Buffer.from(row.opHash) : null},
      ${row.contentHash ? Buffer.from(row.contentHash) : null}, ${row.bytes}, ${text}, ${data}::text::jsonb,
      ${row.sclass}, ${words}::tsvector)`;
}

/** Columns of a tape row insert, in order. */
const COLUMNS = "lsn, tenant, kind, ts, subject, idem_key, op_hash, content_hash, bytes, text, data, sclass, words";

/**
 * Inserts tape rows in one statement (an append's batch: one round trip
 * while the LSN lock is held, not one per row); same columns as insertRow.
 */
export async function insertRows(tx: Q, rows: { lsn: number; row: NewRow }[]): Promise<void> {
  if (rows.length === 0) return;
  const values: unknown[] = [];
  const at = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  const tuples = rows.map(({ lsn, row }) => {
    const { text, data, words } = columns(row);
    return `(${at(lsn)}::bigint, ${at(row.tenant)}, ${at(row.kind)}, ${at(row.ts)}::bigint, ${at(row.subject)}, ${at(row.idemKey)}, ${at(row.opHash ? Buffer.from(row.opHash) : null)}::bytea,
      ${at(row.contentHash ? Buffer.from(row.contentHash) : null)}::bytea, ${at(row.bytes)}::bigint, ${at(text)}, ${at(data)}::text::jsonb, ${at(row.sclass)}::int, ${at(words)}::tsvector)`;
  });
  await tx.unsafe(`INSERT INTO tape (${COLUMNS}) VALUES ${tuples.join(", ")}`, values);
}

/** A key the tenant holds: the LSN it was written at, its operation's hash, and whether a forget hid it. */
export interface HeldKey {
  lsn: number;
  opHash: Buffer | null;
  forgotten: boolean;
}

/**
 * priorWrite for many keys in two statements: each key the tenant holds,
 * live or forgotten (kept as a digest, with no operation hash).
 */
export async function priorWrites(tx: Q, tenant: string, keys: string[]): Promise<Map<string, HeldKey>> {
  const found = new Map<string, HeldKey>();
  if (keys.length === 0) return found;
  const live: { idem_key: string; lsn: string; op_hash: Buffer | null }[] = await tx.unsafe(
    "SELECT idem_key, lsn, op_hash FROM tape WHERE tenant = $1 AND idem_key = ANY($2::text[])",
    [tenant, keys],
  );
  for (const r of live) found.set(r.idem_key, { lsn: Number(r.lsn), opHash: r.op_hash === null ? null : Buffer.from(r.op_hash), forgotten: false });
  const rest = keys.filter((k) => !found.has(k));
  if (rest.length > 0) {
    const digests = new Map(rest.map((k) => [idemDigest(tenant, k).toString("hex"), k]));
    const gone: { d: string; lsn: string }[] = await tx.unsafe(
      "SELECT encode(idem_digest, 'hex') AS d, lsn FROM tape WHERE tenant = $1 AND idem_digest = ANY(SELECT decode(x, 'hex') FROM unnest($2::text[]) AS x)",
      [tenant, [...digests.keys()]],
    );
    for (const r of gone) found.set(digests.get(r.d)!, { lsn: Number(r.lsn), opHash: null, forgotten: true });
  }
  return found;
}

/** The shared key digest (src/store/hashes.ts) as the Buffer the SQL client binds to bytea. */
export function idemDigest(tenant: string, idemKey: string): Buffer {
  return Buffer.from(sharedIdemDigest(tenant, idemKey));
}

/** Whether the tenant holds an idempotency key, live or forgotten. */
export async function keyHeld(tx: Q, tenant: string, idemKey: string): Promise<boolean> {
  const rows = await tx`SELECT 1 FROM tape WHERE tenant = ${tenant} AND (idem_key = ${idemKey} OR idem_digest = ${idemDigest(tenant, idemKey)}) LIMIT 1`;
  return rows.length > 0;
}

/**
 * Looks up an idempotency key: the original LSN when the same operation was
 * done before (or the key was forgotten: a replay writes nothing, I3),
 * undefined when the key is new, `conflict` when it named another operation.
 */
export async function priorWrite(tx: Q, tenant: string, idemKey: string, opHash: Uint8Array, field: string): Promise<number | undefined> {
  const [prior] = await tx`SELECT lsn, op_hash FROM tape WHERE tenant = ${tenant} AND idem_key = ${idemKey}`;
  if (!prior) {
    const [forgotten] = await tx`SELECT lsn FROM tape WHERE tenant = ${tenant} AND idem_digest = ${idemDigest(tenant, idemKey)}`;
    return forgotten ? Number(forgotten.lsn) : undefined;
  }
  if (prior.op_hash && Buffer.compare(Buffer.from(prior.op_hash), Buffer.from(opHash)) === 0) return Number(prior.lsn);
  throw new ZeroDbError("conflict", `${field}: this idempotency key was already used for a different write`, { field });
}

/**
 * One idempotent single-row write in a transaction holding the LSN lock: a
 * key that named this operation before returns its LSN as a duplicate and
 * writes nothing (I3); otherwise `write` runs with the next LSN.
 */
export async function writeOnce(
  sql: Q,
  tenant: string,
  idem: { key: string | undefined; opHash: Uint8Array | null },
  write: (tx: Q, lsn: number) => Promise<void>,
): Promise<{ lsn: number; duplicate: boolean }> {
  return sql.begin(async (tx) => {
    const lsns = await lockLsns(tx);
    if (idem.key) {
      const prior = await priorWrite(tx, tenant, idem.key, idem.opHash!, "idem_key");
      if (prior !== undefined) return { lsn: prior, duplicate: true };
    }
    const lsn = lsns.next();
    await write(tx, lsn);
    await lsns.release();
    return { lsn, duplicate: false };
  });
}

/** An LSN's time as ISO 8601. */
export function isoTime(ms: number | string): string {
  return new Date(Number(ms)).toISOString();
}
