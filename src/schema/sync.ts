/** The shapes of sync's own routes (DESIGN.md 16): a page of a tenant's tape after a server LSN, and one turn too large for JSON. */
import { z } from "zod";
import { AfterLsn, Limit } from "./common.ts";

/**
 * The protocol this build speaks. A client refuses a server that answers
 * with another one (an incompatible version) before it writes anything.
 */
export const SYNC_PROTOCOL = 1;

/** `GET /v1/sync/tape?after=&limit=`: the token's tenant's records after an LSN. */
export const SyncTapeInput = z.strictObject({
  after: AfterLsn.optional().describe("records after this server LSN (the `next` of the previous page); 0 or absent: from the start"),
  limit: Limit.optional().describe("records per page, 1 to 1000, default 1000"),
});

/** One page: the records, in LSN order, and where the next page starts (null: none yet). */
export interface SyncTapePage {
  protocol: number;
  tenant: string;
  /** The tenant's tape records as `zerodb export` writes them; a forgotten one keeps only lsn, kind and forgotten_by. */
  records: Record<string, unknown>[];
  next: number | null;
}

/**
 * `POST /v1/sync/turn`: one turn whose JSON would pass the 8 MiB body limit
 * (4 MiB of quotes or control characters escape two- to six-fold). The body
 * is one line of JSON, `{session, role, meta?, idem_key?}`, a newline, then
 * the content's UTF-8 bytes as they are, unescaped: the line at most
 * SYNC_TURN_HEAD_MAX_BYTES, the content at most CONTENT_MAX_BYTES.
 */
export const SYNC_TURN_TYPE = "application/vnd.zerodb.turn";
/** The header line of a `POST /v1/sync/turn` body, at most (a meta of 16 KiB, two names and a key, with room). */
export const SYNC_TURN_HEAD_MAX_BYTES = 64 * 1024;
