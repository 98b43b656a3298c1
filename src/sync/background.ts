/**
 * Sync in the background (DESIGN.md 16, issue 30): with `sync` configured, a
 * capture run that wrote to the local store starts a detached `zerodb sync`,
 * at most once per BACKGROUND_INTERVAL_MS per store, and never waits for it:
 * a hook stays local, whatever the network does. The stamp is a file's
 * modification time beside the store (one stat per run); one sync at a time
 * is sync's own lock (a second one exits at once).
 */
import { statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";

/** Background syncs of one store start at most this often. */
export const BACKGROUND_INTERVAL_MS = 60_000;
/** The file whose modification time says when the last one started. */
export const STAMP_FILE = "zerodb-sync.started";

/**
 * Starts `spawn` (a detached sync) when sync is configured for this local
 * store, the run wrote something, and none started within the interval.
 * Whether it started; never throws (a hook must not fail for it).
 */
export function backgroundSync(config: Config, opts: { appended: number; spawn: () => void; now?: number }): boolean {
  try {
    if (config.url !== undefined || config.file.sync === undefined || opts.appended === 0) return false;
    const stamp = join(config.dataDir, STAMP_FILE);
    const now = opts.now ?? Date.now();
    let last = 0;
    try {
      last = statSync(stamp).mtimeMs;
    } catch {
      writeFileSync(stamp, "", { mode: 0o600 });
    }
    if (last > 0 && now - last < BACKGROUND_INTERVAL_MS) return false;
    utimesSync(stamp, now / 1000, now / 1000);
    opts.spawn();
    return true;
  } catch {
    return false;
  }
}
