/**
 * What an import (DESIGN.md 6.3) does alike on every engine: reading the
 * records in LSN order, and turning each into the tape row it restores. An
 * engine supplies only its SQL: where the row goes, the sessions and facts it
 * derives, the records a forget hid.
 */
import { ZeroDbError } from "../errors.ts";
import { parseInput } from "../schema/parse.ts";
import { type TapeRecord, tapeRecordSchema } from "../schema/tape.ts";
import { idemDigest } from "./hashes.ts";
import { NO_PAYLOAD, type RowPayload, factPayload, forgetData, forgetPayload, linkPayload, objectPayload, turnPayload } from "./rows.ts";

/** A record that is not forgotten. */
type LiveRecord = Exclude<TapeRecord, { forgotten_by: number }>;

/** The tape row a record restores: its payload as a live write makes it (rows.ts), and its place. */
export interface ImportedRow extends RowPayload {
  lsn: number;
  tenant: string;
  ts: number;
  idemKey: string | null;
  /** A forgotten record's key digest: all that keeps its key reserved (I3). */
  idemDigest: Uint8Array | null;
  opHash: Uint8Array | null;
}

/**
 * The records of an import, parsed (`line N` names a bad one) and each with a
 * greater LSN than the one before; the stream is read one record at a time.
 */
export async function* importLines(records: AsyncIterable<unknown>): AsyncGenerator<{ rec: TapeRecord; at: string; line: number }> {
  let last = 0;
  let line = 0;
  for await (const raw of records) {
    line++;
    const at = `line ${line}`;
    const rec = parseInput(tapeRecordSchema(raw), raw, at);
    if (rec.lsn <= last) throw new ZeroDbError("invalid_input", `${at}: lsn ${rec.lsn} is not greater than ${last}`, { field: `${at}.lsn` });
    last = rec.lsn;
    yield { rec, at, line };
  }
}

/** The parts of a row every kind shares. */
function head(rec: TapeRecord): Omit<ImportedRow, keyof RowPayload> & { kind: RowPayload["kind"] } {
  return {
    lsn: rec.lsn,
    tenant: rec.tenant,
    kind: rec.kind,
    ts: Date.parse(rec.ts),
    idemKey: rec.idem_key ?? null,
    idemDigest: null,
    opHash: rec.op_hash ? Buffer.from(rec.op_hash, "hex") : null,
  };
}

/** A forgotten record's row: no payload, no key, no operation hash; an older export's key becomes its digest (issue 14 item 4). */
export function forgottenRow(rec: Extract<TapeRecord, { forgotten_by: number }>): ImportedRow {
  const digest = rec.idem_digest ? Buffer.from(rec.idem_digest, "hex") : rec.idem_key ? idemDigest(rec.tenant, rec.idem_key) : null;
  return { ...head(rec), ...NO_PAYLOAD, idemKey: null, idemDigest: digest, opHash: null };
}

/**
 * A forget's row, from the LSNs of the records that name it (`hidden`, in
 * order: they come before it). An export's own count and ranges must agree;
 * an older export's selector is dropped, the LSNs are what a replay needs.
 */
export function forgetRow(rec: Extract<LiveRecord, { kind: "forget" }>, hidden: number[], at: string): ImportedRow {
  if (rec.lsns !== undefined && (rec.hidden !== hidden.length || JSON.stringify(rec.lsns) !== JSON.stringify(forgetData(hidden).lsns))) {
    throw new ZeroDbError("invalid_input", `${at}: lsns do not match the records that name this forget`, { field: `${at}.lsns` });
  }
  return { ...head(rec), ...forgetPayload(hidden) };
}

/** The row of a live turn, fact, link or object, as the live write makes it. */
export function liveRow(rec: Exclude<LiveRecord, { kind: "forget" }>): ImportedRow {
  switch (rec.kind) {
    case "turn": {
      const meta = Object.keys(rec.meta).length > 0 ? rec.meta : undefined;
      return { ...head(rec), ...turnPayload(rec.session, { role: rec.role, content: rec.content, meta }) };
    }
    case "fact":
      return { ...head(rec), ...factPayload(rec.key, rec.value) };
    case "link":
      return { ...head(rec), ...linkPayload(rec) };
    case "object":
      return { ...head(rec), ...objectPayload(rec.object, rec) };
  }
}

/** The error for a forgotten record whose forget the import does not hold: a crafted export cannot hide rows behind one that never happened. */
export function orphanForgotten(lsn: number): ZeroDbError {
  return new ZeroDbError("invalid_input", `record ${lsn}: forgotten_by names no forget of its tenant`, { field: "forgotten_by" });
}
