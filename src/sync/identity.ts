/**
 * A replicated record's identity (DESIGN.md 16): the store that first wrote
 * it and its LSN there, carried in the idempotency key every replica stores
 * it under, `zsync:<origin store>:<origin LSN>` (at most 55 bytes, inside
 * the 255 of DESIGN.md 3). The store's own guarantee (I3) then makes a
 * retried or repeated sync store nothing twice, forgotten records included.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ZeroDbError } from "../errors.ts";
import type { Origin } from "./journal.ts";

/**
 * The origin of records the server holds that no store pushed (written in
 * remote mode, or imported there): the server itself. A store syncs with one
 * server (the journal binds it), so its LSN names them.
 */
export const SERVER_ORIGIN = "server";

const KEY = /^zsync:([0-9a-f]{32}|server):([1-9][0-9]{0,15})$/;

/** The idempotency key of a replicated record. */
export function syncKey(o: Origin): string {
  return `zsync:${o.store}:${o.lsn}`;
}

/** The origin a sync key names, or undefined for any other key. */
export function parseSyncKey(key: string | undefined | null): Origin | undefined {
  const m = key ? KEY.exec(key) : null;
  return m ? { store: m[1]!, lsn: Number(m[2]) } : undefined;
}

/** The random id of the local store of a data dir (`zerodb.id`, written when the store was created). */
export function localStoreId(dataDir: string): string {
  let text: string;
  try {
    text = readFileSync(join(dataDir, "zerodb.id"), "utf8").trim();
  } catch (err) {
    throw new ZeroDbError("corrupt", `the store in ${dataDir} has no zerodb.id: run \`zerodb doctor\``, { cause: err });
  }
  if (!/^[0-9a-f]{32}$/.test(text)) throw new ZeroDbError("corrupt", `${join(dataDir, "zerodb.id")} is damaged: run \`zerodb doctor\``);
  return text;
}
