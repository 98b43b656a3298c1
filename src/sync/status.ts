/**
 * How far a store's sync is (DESIGN.md 16), for `zerodb doctor`: the server
 * it syncs with, when it last synced, and how many of its own records wait
 * to be pushed. Read from the journal and the local tape; never the network.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "../store/types.ts";
import { localStoreId } from "./identity.ts";
import { JOURNAL_FILE, openJournal } from "./journal.ts";
import { isReplica } from "./push.ts";

/** Counting stops here: past it the count says "at least". */
export const WAITING_COUNT_MAX = 100_000;

/** A store's sync state; `url` undefined when it never synced. */
export interface SyncStatus {
  url?: string;
  tenant?: string;
  last_sync?: string;
  /** Records this store wrote that the server has not acknowledged (at most WAITING_COUNT_MAX). */
  waiting: number;
}

/** The sync state of a store's tenant, or undefined when the store never synced. */
export async function syncStatus(store: Store, tenant: string): Promise<SyncStatus | undefined> {
  if (!existsSync(join(store.dataDir, JOURNAL_FILE))) return undefined;
  const journal = openJournal(store.dataDir);
  try {
    const bound = journal.binding();
    if (!bound) return undefined;
    const self = localStoreId(store.dataDir);
    let waiting = 0;
    for await (const rec of store.exportTape({ tenant, after: journal.pushed() })) {
      if ("forgotten_by" in rec || isReplica({ journal, self }, rec)) continue;
      if (++waiting >= WAITING_COUNT_MAX) break;
    }
    const last = journal.get("last_sync");
    return { url: bound.url, tenant: bound.tenant, ...(last ? { last_sync: last } : {}), waiting };
  } finally {
    journal.close();
  }
}
