/** A full pass over the tape's checksums, for `zerodb doctor` and `check({full})`. */
import type { Database } from "bun:sqlite";
import { rowChecksum } from "./_tape.ts";
import { storeIdOf } from "./identity.ts";

/** LSNs of live rows whose payload no longer matches its checksum (at most `max`). */
export function damagedRows(db: Database, max = 10): number[] {
  const bad: number[] = [];
  const storeId = storeIdOf(db);
  const rows = db.query("SELECT lsn, subject, text, data, checksum FROM tape WHERE forgotten_by IS NULL").iterate() as IterableIterator<{
    lsn: number;
    subject: string | null;
    text: string | null;
    data: string | null;
    checksum: Uint8Array | null;
  }>;
  for (const r of rows) {
    const ok = r.checksum && Buffer.compare(Buffer.from(r.checksum), Buffer.from(rowChecksum(storeId, r))) === 0;
    if (!ok) {
      bad.push(r.lsn);
      if (bad.length >= max) break;
    }
  }
  return bad;
}
