/**
 * Sync in the background (DESIGN.md 16, issue 30): with `sync` configured, a
 * capture run, a CLI write (`zerodb append`, ...) or an MCP write tool that
 * wrote to the local store starts a detached `zerodb sync`, at most once per
 * BACKGROUND_INTERVAL_MS per store, and never waits for it: hooks, commands
 * and tools stay local, whatever the network does. The stamp is a file's
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
export function backgroundSync(config: Config, opts: { appended: number; spawn: () => void; now?: number; force?: boolean }): boolean {
  return startOrWait(config, opts) === 0;
}

/** 0 when it started one; else the milliseconds until one may start (Infinity: never, sync is off or the stamp unwritable). */
function startOrWait(config: Config, opts: { appended: number; spawn: () => void; now?: number; force?: boolean }): number {
  try {
    if (!syncConfigured(config) || opts.appended === 0) return Number.POSITIVE_INFINITY;
    const stamp = join(config.dataDir, STAMP_FILE);
    const now = opts.now ?? Date.now();
    let last = 0;
    try {
      last = statSync(stamp).mtimeMs;
    } catch {
      writeFileSync(stamp, "", { mode: 0o600 });
    }
    if (!opts.force && last > 0 && now - last < BACKGROUND_INTERVAL_MS) return BACKGROUND_INTERVAL_MS - (now - last);
    utimesSync(stamp, now / 1000, now / 1000);
    opts.spawn();
    return 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * Whether a write's result says it stored something: not a duplicate (a retry
 * under the same key), not a forget that matched nothing or only counted (lsn
 * null), not an append whose every entry was a duplicate. Results of append,
 * fact set, forget, object put and link add, as each door returns them.
 */
export function wroteSomething(result: unknown): boolean {
  if (typeof result !== "object" || result === null) return false;
  const r = result as { entries?: { duplicate?: boolean }[]; duplicate?: boolean; lsn?: number | null };
  if (Array.isArray(r.entries)) return r.entries.some((e) => e.duplicate !== true);
  return r.duplicate !== true && r.lsn !== null;
}

/** Whether writes of this configuration sync in the background: a local store with `sync` in the config. */
export function syncConfigured(config: Config): boolean {
  return config.url === undefined && config.file.sync !== undefined;
}

/**
 * The background sync of a writer that lives on (the MCP server): each
 * write asks for one; one asked for within the interval starts when the
 * interval ends (a timer that does not keep the process alive), and one
 * still owed when the writer closes (the session ended) starts then.
 */
export function backgroundSyncer(config: Config, spawn: () => void): { wrote(): void; close(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const start = (force: boolean) => {
    timer = undefined;
    const wait = startOrWait(config, { appended: 1, spawn, force });
    if (!force && wait > 0 && Number.isFinite(wait)) timer = setTimeout(() => start(false), wait + 50).unref();
  };
  return {
    wrote: () => {
      if (timer === undefined) start(false);
    },
    close: () => {
      if (timer === undefined) return;
      clearTimeout(timer);
      start(true);
    },
  };
}
