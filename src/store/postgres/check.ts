/**
 * Store.check on PostgreSQL (doctor's store check): the counter hands out
 * no LSN already taken (I1), and every object's blob has all its chunks (I7).
 * Both read indexes only: cheap on a large database. Record checksums are
 * not built on this engine.
 */
import type { CheckResult } from "../types.ts";
import type { Q } from "./_tape.ts";

/** Checks the database behind a store whose name (password hidden) is `shown`. */
export async function checkDatabase(sql: Q, shown: string): Promise<CheckResult> {
  const [lsns] = await sql`SELECT (SELECT last FROM lsn_counter WHERE id = 1) AS last, (SELECT max(lsn) FROM tape) AS max`;
  const last = Number(lsns.last);
  const max = lsns.max === null ? 0 : Number(lsns.max);
  if (last < max) return { ok: false, detail: `the LSN counter (${last}) is behind the newest record (${max}): new writes would fail` };
  const [blobs] = await sql`SELECT count(*) AS objects, count(*) FILTER (WHERE o.blob IS NOT NULL AND
      (SELECT count(*) FROM blob_chunks c WHERE c.blob = o.blob) <> ceil(o.size::numeric / o.chunk)) AS broken,
      (SELECT count(*) FROM blob_uploads) AS uploads FROM objects o`;
  if (Number(blobs.broken) > 0) return { ok: false, detail: `${blobs.broken} object(s) miss chunks of their bytes` };
  return {
    ok: true,
    detail: `connected to ${shown}; last lsn ${max}; ${blobs.objects} object(s), every one whole; ${blobs.uploads} upload(s) in progress (record checksums are not built on this engine yet)`,
  };
}
