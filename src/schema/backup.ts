/**
 * The shapes a backup file carries besides tape records (issue 20, DESIGN.md
 * 15): its header, and the store state that lives beside the tape (HTTP
 * tokens as their digests, capture cursors). A restore checks every line
 * against these before it writes anything of it.
 */
import { once } from "../util/once.ts";
import type { z } from "zod";
import { zod } from "./zod.ts";
import { tokenSchemas } from "./tokens.ts";

/**
 * Builds the schemas once, on first use: only backup and restore read them,
 * and every process that opens a store (a capture hook above all) would pay
 * for building them otherwise.
 */
function build() {
  const s = zod();
  // Required on first use, not imported: common.ts builds its schemas as it loads (issue 32).
  const { AfterLsn, Name, Tenant } = require("./common.ts") as typeof import("./common.ts");
  const { TokenId } = tokenSchemas();
  const Millis = s.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
  const Count = s.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

  /** A store id: 16 random bytes as hex (src/store/sqlite/identity.ts). */
  const StoreId = s.string().regex(/^[0-9a-f]{32}$/);

  /**
   * Which copy of a store wrote which LSNs: `[copy id, first LSN it wrote]`,
   * in order. A store begins with one entry; each restore adds one.
   */
  const Lineage = s.array(s.tuple([s.string().regex(/^[0-9a-f]{32}$/), AfterLsn.min(1)])).min(1);

  /** The header of a backup file (format 2; format 1 lacks `after` and `lineage`). */
  const BackupHeader = s.object({
    store_id: StoreId,
    tenant: Tenant.nullable(),
    /** 0 for a full backup; an increment holds the records after this LSN. */
    after: AfterLsn.default(0),
    /** The store's last LSN at the snapshot (format 1 tenant backups: the tenant's). */
    last_lsn: AfterLsn,
    lineage: Lineage.optional(),
    created: s.string(),
  });

  /** An HTTP token as a backup keeps it: its SHA-256 digest (hex), never the secret. */
  const TokenRecord = s.strictObject({
    digest: s.string().regex(/^[0-9a-f]{64}$/),
    id: TokenId,
    tenant: Tenant,
    created: Millis,
    revoked: Millis.nullable(),
  });

  /** A capture cursor as a backup keeps it (DESIGN.md 7.2). */
  const CursorRecord = s.strictObject({
    tenant: Tenant,
    source: s.string().min(1).max(4096),
    session: Name,
    path: s.string().max(4096),
    offset: Count,
    position: Count,
    chunk: Count,
    updated: Millis,
  });

  /** The trailer (format 1 has no `tokens` and `cursors`). */
  const BackupTrailer = s.object({
    records: Count,
    tokens: Count.default(0),
    cursors: Count.default(0),
    objects: Count,
    sha256: s.string().regex(/^[0-9a-f]{64}$/),
  });
  return { Lineage, BackupHeader, TokenRecord, CursorRecord, BackupTrailer };
}

/** The backup file's schemas: Lineage, BackupHeader, TokenRecord, CursorRecord, BackupTrailer. */
export const backupSchemas = once(build);

type Schemas = ReturnType<typeof build>;
export type Lineage = z.infer<Schemas["Lineage"]>;
export type BackupHeader = z.output<Schemas["BackupHeader"]>;
export type TokenRecord = z.infer<Schemas["TokenRecord"]>;
export type CursorRecord = z.infer<Schemas["CursorRecord"]>;
export type BackupTrailer = z.output<Schemas["BackupTrailer"]>;
