/**
 * A tape row read back as the record an export writes (DESIGN.md 6.3), apart
 * from export and import (`transfer.ts`): export reads every row through it,
 * and so does the check that an increment's record is the store's own
 * (`increment.ts`), which import calls.
 */
import type { Database } from "bun:sqlite";
import type { TapeRecord } from "../../schema/tape.ts";
import { lsnRanges } from "../ranges.ts";
import { isoTime, verifyRow } from "./_tape.ts";
import type { ForgetData } from "../rows.ts";
import { hiddenBy } from "./forget/record.ts";

/** A tape row as export reads it. */
export interface Row {
  lsn: number;
  tenant: string;
  kind: TapeRecord["kind"];
  ts: number;
  subject: string | null;
  idem_key: string | null;
  idem_digest: Uint8Array | null;
  op_hash: Uint8Array | null;
  text: string | null;
  data: string | null;
  checksum: Uint8Array | null;
  forgotten_by: number | null;
}

/** A tape row as an export record (a forgotten row keeps only what reserves its key). */
export function toRecord(db: Database, row: Row): TapeRecord {
  const at = { lsn: row.lsn, tenant: row.tenant, ts: isoTime(row.ts) };
  if (row.forgotten_by !== null) {
    // Only what keeps the key reserved (I3): never the key, never the operation's hash.
    const digest = row.idem_digest !== null ? { idem_digest: Buffer.from(row.idem_digest).toString("hex") } : {};
    return { ...at, kind: row.kind as "turn", forgotten_by: row.forgotten_by, ...digest };
  }
  const base = {
    ...at,
    ...(row.idem_key !== null ? { idem_key: row.idem_key } : {}),
    ...(row.op_hash !== null ? { op_hash: Buffer.from(row.op_hash).toString("hex") } : {}),
  };
  // An export is a backup: it must not copy damaged bytes as if they were good.
  verifyRow(db, row);
  const data = JSON.parse(row.data ?? "null");
  switch (row.kind) {
    case "turn":
      return { ...base, kind: "turn", session: row.subject!, role: data.role, content: row.text!, meta: data.meta ?? {} };
    case "fact":
      return { ...base, kind: "fact", key: row.subject!, value: data };
    case "forget": {
      const lsns = (data as ForgetData).lsns ?? lsnRanges(hiddenBy(db, row.lsn));
      return { ...base, kind: "forget", hidden: lsns.reduce((n, [a, b]) => n + b - a + 1, 0), lsns };
    }
    case "link":
      return { ...base, kind: "link", url: data.url, title: data.title ?? null, note: data.note ?? null };
    case "object":
      return { ...base, kind: "object", object: row.subject!, size: data.size, type: data.type, name: data.name ?? null };
  }
}
