/**
 * The shapes a backup file carries besides tape records (issue 20, DESIGN.md
 * 15): its header, and the store state that lives beside the tape (HTTP
 * tokens as their digests, capture cursors). A restore checks every line
 * against these before it writes anything of it.
 */
import { z } from "zod";
import { AfterLsn, Name, Tenant } from "./common.ts";
import { TokenId } from "./tokens.ts";

const Millis = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** A store id: 16 random bytes as hex (src/store/sqlite/identity.ts). */
const StoreId = z.string().regex(/^[0-9a-f]{32}$/);

/**
 * Which copy of a store wrote which LSNs: `[copy id, first LSN it wrote]`,
 * in order. A store begins with one entry; each restore adds one.
 */
export const Lineage = z.array(z.tuple([z.string().regex(/^[0-9a-f]{32}$/), AfterLsn.min(1)])).min(1);

/** The header of a backup file (format 2; format 1 lacks `after` and `lineage`). */
export const BackupHeader = z.object({
  store_id: StoreId,
  tenant: Tenant.nullable(),
  /** 0 for a full backup; an increment holds the records after this LSN. */
  after: AfterLsn.default(0),
  /** The store's last LSN at the snapshot (format 1 tenant backups: the tenant's). */
  last_lsn: AfterLsn,
  lineage: Lineage.optional(),
  created: z.string(),
});

/** An HTTP token as a backup keeps it: its SHA-256 digest (hex), never the secret. */
export const TokenRecord = z.strictObject({
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  id: TokenId,
  tenant: Tenant,
  created: Millis,
  revoked: Millis.nullable(),
});

/** A capture cursor as a backup keeps it (DESIGN.md 7.2). */
export const CursorRecord = z.strictObject({
  tenant: Tenant,
  source: z.string().min(1).max(4096),
  session: Name,
  path: z.string().max(4096),
  offset: Count,
  position: Count,
  chunk: Count,
  updated: Millis,
});

/** The trailer (format 1 has no `tokens` and `cursors`). */
export const BackupTrailer = z.object({
  records: Count,
  tokens: Count.default(0),
  cursors: Count.default(0),
  objects: Count,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export type Lineage = z.infer<typeof Lineage>;
export type BackupHeader = z.output<typeof BackupHeader>;
export type TokenRecord = z.infer<typeof TokenRecord>;
export type CursorRecord = z.infer<typeof CursorRecord>;
export type BackupTrailer = z.output<typeof BackupTrailer>;
