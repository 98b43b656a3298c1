/**
 * Sync in the background (DESIGN.md 16, issue 30): with `sync` configured, a
 * capture run, a CLI write (`zerodb append`, ...) or an MCP write tool that
 * wrote to the local store starts a detached `zerodb sync`, at most once per
 * BACKGROUND_INTERVAL_MS per store, and never waits for it: hooks, commands
 * and tools stay local, whatever the network does. The stamp is a file's
 * modification time beside the store (one stat per run); one sync at a time
 * is sync's own lock (a second one exits at once).
 *
 * A write within the interval is owed a sync: a hook or a command leaves an
 * owed mark beside the store and starts one detached trailing sync
 * (`zerodb sync --trailing`), which waits out the interval and then syncs
 * once if anything still waits to be pushed. The mark says a trailing sync
 * is on its way (the writes after it need start none); that sync keeps the
 * mark fresh while it waits, so one killed meanwhile is replaced by the next
 * write, and removes it before it reads what to push, so a write after that
 * is owed a sync of its own.
 */
import { rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";

/** Background syncs of one store start at most this often. */
export const BACKGROUND_INTERVAL_MS = 60_000;
/** The file whose modification time says when the last one started. */
export const STAMP_FILE = "zerodb-sync.started";
/** The owed mark: a trailing sync is waiting for the interval to end. */
export const OWED_FILE = "zerodb-sync.owed";
/** How often a waiting trailing sync looks at the stamp and freshens its mark. */
const POLL_MS = 1000;
/** An owed mark not freshened for this long was left by a trailing sync that died. */
export const OWED_STALE_MS = 15_000;

/** How a run that wrote asks for its background sync. */
export interface BackgroundSyncOptions {
  appended: number;
  /** Starts a detached sync now. */
  spawn: () => void;
  /** Starts a detached trailing sync (waits out the interval); without it a write within the interval is left to a later one. */
  spawnTrailing?: () => void;
  now?: number;
  force?: boolean;
}

/**
 * Starts `spawn` (a detached sync) when sync is configured for this local
 * store, the run wrote something, and none started within the interval;
 * within it, makes sure a trailing sync is on its way (`spawnTrailing`).
 * Whether a sync started now; never throws (a hook must not fail for it).
 */
export function backgroundSync(config: Config, opts: BackgroundSyncOptions): boolean {
  const wait = startOrWait(config, opts);
  if (wait > 0 && Number.isFinite(wait) && opts.spawnTrailing) oweSync(config.dataDir, opts.spawnTrailing, opts.now ?? Date.now());
  return wait === 0;
}

/** Leaves the owed mark and starts a trailing sync, unless a live one's mark is there. Never throws. */
function oweSync(dataDir: string, spawnTrailing: () => void, now: number): void {
  const owed = join(dataDir, OWED_FILE);
  try {
    try {
      // Created exclusively: of the writes racing here, one starts the trailing sync.
      writeFileSync(owed, "", { flag: "wx", mode: 0o600 });
    } catch (err) {
      if ((err as { code?: string }).code !== "EEXIST") return;
      if (now - statSync(owed).mtimeMs < OWED_STALE_MS) return;
      // The trailing sync that left it died (kill -9, a reboot): this write starts the next one.
      utimesSync(owed, now / 1000, now / 1000);
    }
    spawnTrailing();
  } catch {
    // A store dir that cannot take the mark: the write is left to the next sync, as before trailing syncs.
  }
}

/**
 * What a trailing sync does before it syncs: waits until the interval since
 * the last background sync started has passed (looking again every second:
 * a sync started meanwhile moves the stamp, and the wait with it), keeping
 * its owed mark fresh, then removes the mark. `sleep` is injectable for tests.
 */
export async function waitOutInterval(dataDir: string, opts: { sleep?: (ms: number) => Promise<void> } = {}): Promise<void> {
  const sleep = opts.sleep ?? ((ms: number) => Bun.sleep(ms));
  const stamp = join(dataDir, STAMP_FILE);
  const owed = join(dataDir, OWED_FILE);
  for (;;) {
    let last = 0;
    try {
      last = statSync(stamp).mtimeMs;
    } catch {}
    const left = last + BACKGROUND_INTERVAL_MS - Date.now();
    if (left <= 0) break;
    try {
      const now = Date.now() / 1000;
      utimesSync(owed, now, now);
    } catch {}
    await sleep(Math.min(left, POLL_MS));
  }
  // Before the tape is read: a write after this is not covered by this sync, and owes one of its own.
  rmSync(owed, { force: true });
}

/** Moves the stamp to now (making it if need be): a trailing sync starts, and counts as the interval's background sync. Never throws. */
export function stampStart(dataDir: string, now = Date.now()): void {
  const stamp = join(dataDir, STAMP_FILE);
  try {
    writeFileSync(stamp, "", { flag: "a", mode: 0o600 });
    utimesSync(stamp, now / 1000, now / 1000);
  } catch {}
}

/** 0 when it started one; else the milliseconds until one may start (Infinity: never, sync is off or the stamp unwritable). */
function startOrWait(config: Config, opts: BackgroundSyncOptions): number {
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
