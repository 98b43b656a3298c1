/**
 * The capture sink the shared flags select (DESIGN.md 7.2): the local store,
 * or with a URL the HTTP client's Memory plus cursor files in the home.
 */
import { join } from "node:path";
import { type Config, homePaths } from "../config.ts";
import { localSink } from "../capture/local-sink.ts";
import type { CaptureSink } from "../capture/sink.ts";
import { checkTenant } from "../schema/tenant.ts";
import type { WorkTrace } from "../store/types.ts";
import { guardPrivatePaths } from "../util/private-path.ts";
import type { SharedFlags } from "./args.ts";
import { openLocalStore, withMemory } from "./context.ts";

/** Which sink withCaptureSink opens: the shared flags, their configuration, and whether to trace SQL (local store only). */
export interface CaptureSinkOptions {
  flags: SharedFlags;
  config: Config;
  trace?: boolean;
  /** Starts a detached `zerodb sync` (the hooks), or a trailing one: called after a run that wrote, when sync is configured. */
  syncInBackground?: (opts?: { trailing?: boolean }) => void;
}

/** Runs `fn` with the sink of the configuration, closing it afterwards. */
export async function withCaptureSink<T>(opts: CaptureSinkOptions, fn: (sink: CaptureSink & { trace?: WorkTrace }) => Promise<T>): Promise<T> {
  const { flags, config } = opts;
  if (config.url) {
    const url = config.url;
    // Loaded only here: its cursor-file schemas cost every local hook's start otherwise.
    const { remoteCursorDir, remoteSink } = await import("../capture/remote-sink.ts");
    // The cursors live in the home: not in one another user owns or can write (issue 14, item 3).
    guardPrivatePaths(homePaths(config.home).filter((p) => p.path === config.home || p.path === join(config.home, "capture")));
    return withMemory(flags, (memory) => fn(remoteSink(memory, remoteCursorDir(config.home, url, memory.tenant))));
  }
  // The tenant is checked before the store is opened or created: bad input never touches disk (I6).
  const tenant = checkTenant(config.tenant ?? "local");
  const store = await openLocalStore(config);
  let appended = 0;
  try {
    const sink = localSink(store, tenant, { trace: opts.trace });
    return await fn({
      ...sink,
      commit: async (batch) => {
        const outcome = await sink.commit(batch);
        if (outcome.status === "committed") appended += outcome.appended;
        return outcome;
      },
    });
  } finally {
    store.close();
    // What this run wrote goes to the team server in the background, when sync is configured (src/sync/background.ts).
    if (appended > 0 && config.file.sync !== undefined && opts.syncInBackground) {
      const { backgroundSync } = await import("../sync/background.ts");
      const spawn = opts.syncInBackground;
      backgroundSync(config, { appended, spawn: () => spawn(), spawnTrailing: () => spawn({ trailing: true }) });
    }
  }
}
