/**
 * A trailing sync (`zerodb sync --trailing`, src/sync/background.ts): what
 * a write within the background interval starts, detached. It waits out the
 * interval, then syncs once if this store's own records still wait to be
 * pushed; a sync already running (the lock) is waited for, since it may
 * have read the tape before the writes this one is owed. It never creates a
 * store: a data dir gone while it waited ends it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DB_FILE } from "../store/index.ts";
import type { Store } from "../store/types.ts";
import { BACKGROUND_INTERVAL_MS, stampStart, waitOutInterval } from "./background.ts";
import { isLockBusy } from "./journal.ts";
import type { SyncResult } from "./run.ts";
import { syncStatus } from "./status.ts";

/** A trailing sync that found nothing to do, and why. */
export interface Skipped {
  skipped: string;
}

/** What a trailing sync is given: the store (opened only once the interval is over) and how to sync it. */
export interface TrailingOptions {
  dataDir: string;
  tenant: string;
  withStore: <T>(fn: (store: Store) => Promise<T>) => Promise<T>;
  sync: (store: Store) => Promise<SyncResult>;
  sleep?: (ms: number) => Promise<void>;
}

/** Waits out the interval, then syncs once if anything waits to be pushed. */
export async function trailingSync(opts: TrailingOptions): Promise<SyncResult | Skipped> {
  const sleep = opts.sleep ?? ((ms: number) => Bun.sleep(ms));
  const storeFile = join(opts.dataDir, DB_FILE);
  if (!existsSync(storeFile)) return { skipped: `no store in ${opts.dataDir}` };
  await waitOutInterval(opts.dataDir, { sleep });
  // A sync holding the lock for longer than this is not waited for: the next write owes one again.
  const deadline = Date.now() + BACKGROUND_INTERVAL_MS;
  for (;;) {
    if (!existsSync(storeFile)) return { skipped: `no store in ${opts.dataDir}` };
    try {
      return await opts.withStore(async (store): Promise<SyncResult | Skipped> => {
        const status = await syncStatus(store, opts.tenant);
        if (status !== undefined && status.waiting === 0) return { skipped: "nothing waits to be pushed" };
        stampStart(opts.dataDir);
        return opts.sync(store);
      });
    } catch (err) {
      if (!isLockBusy(err) || Date.now() > deadline) throw err;
      await sleep(1000);
    }
  }
}
