/**
 * A restore into PostgreSQL (issue 20, DESIGN.md 12 and 15): the records of
 * a verified backup and the bytes of the objects they reference appear in
 * one transaction, or nothing does. Each object's bytes are uploaded first
 * as chunks no reader knows (as a put's are) and checked against their
 * digest; the transaction then imports the records (import's rules: an
 * empty store, LSNs kept) and publishes every digest, each of which a live
 * imported record must reference. On any failure the staged chunks are
 * deleted (or reaped once idle, after a kill).
 */
import { ZeroDbError } from "../../errors.ts";
import { OBJECT_MAX_BYTES_DEFAULT } from "../../limits.ts";
import type { ObjectSource } from "../../objects/types.ts";
import type { Q } from "./_tape.ts";
import { type StagedChunks, discardUpload, publish, uploadChunks } from "./blobs.ts";
import { importInto } from "./transfer.ts";

/** An object's bytes for a restore: its digest and a way to read them. */
export interface RestoreBlob {
  digest: string;
  bytes(): ObjectSource;
}

/** Imports `records` into an empty store with the bytes of `blobs`, in one transaction. */
export async function importWithBlobs(
  sql: Q,
  records: AsyncIterable<unknown>,
  blobs: Iterable<RestoreBlob> | AsyncIterable<RestoreBlob>,
  maxBytes = OBJECT_MAX_BYTES_DEFAULT,
): Promise<{ records: number; last_lsn: number; objects: number }> {
  const [existing] = await sql`SELECT count(*) AS n FROM tape`;
  if (Number(existing.n) > 0) throw new ZeroDbError("conflict", "restore needs an empty database: this one already holds records");
  const staged: StagedChunks[] = [];
  let committed = false;
  try {
    for await (const blob of blobs) {
      const s = await uploadChunks(sql, blob.bytes(), maxBytes);
      staged.push(s);
      if (s.digest !== blob.digest) throw new ZeroDbError("invalid_input", `object ${blob.digest}: its bytes hash to ${s.digest}`, { field: "object" });
    }
    const result = await sql.begin(async (tx) => {
      const imported = await importInto(tx, records);
      for (const s of staged) {
        const [ref] = await tx`SELECT 1 FROM tape WHERE kind = 'object' AND subject = ${s.digest} AND forgotten_by IS NULL LIMIT 1`;
        if (!ref) throw new ZeroDbError("invalid_input", `object ${s.digest}: no live record references it`, { field: "object" });
        await publish(tx, s);
      }
      // Every live ref has its bytes: a restored store never answers not_found for an object it lists.
      const [missing] = await tx`SELECT t.subject FROM tape t LEFT JOIN objects o ON o.digest = t.subject
        WHERE t.kind = 'object' AND t.forgotten_by IS NULL AND (o.digest IS NULL OR o.blob IS NULL) LIMIT 1`;
      if (missing)
        throw new ZeroDbError("invalid_input", `object ${missing.subject}: a live record references it and the restore has no bytes for it`, {
          field: "object",
        });
      return { ...imported, objects: staged.length };
    });
    committed = true;
    return result;
  } finally {
    if (!committed) for (const s of staged) await discardUpload(sql, s.blob).catch(() => {});
  }
}
