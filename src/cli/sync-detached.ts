/** Background sync from the CLI (src/sync/background.ts decides when): a detached `zerodb sync` of the store the flags select. */
import type { Config } from "../config.ts";
import type { Memory } from "../store/types.ts";
import { selfCommand } from "../harness/self.ts";
import type { SharedFlags } from "./args.ts";
import { withMemory } from "./context.ts";

/**
 * Starts `zerodb sync --quiet` (with `trailing`, `--trailing`: it waits out
 * the interval first) for the store the flags select, its output redirected:
 * it outlives the caller and never holds it up.
 */
export function syncDetached(args: SharedFlags, opts: { trailing?: boolean } = {}): void {
  const { command, prefix } = selfCommand(process.execPath, Bun.main);
  const flags: string[] = [];
  for (const name of ["home", "data-dir", "tenant", "config"] as const) {
    const v = args[name];
    if (typeof v === "string") flags.push(`--${name}`, v);
  }
  if (opts.trailing) flags.push("--trailing");
  Bun.spawn([command, ...prefix, "sync", "--quiet", ...flags], { stdio: ["ignore", "ignore", "ignore"], detached: true }).unref();
}

/**
 * withMemory for a command that writes (append, fact set, forget, ...): once
 * the write is acknowledged and the store closed, a local store with `sync`
 * configured starts a background sync (at most once a minute; within the
 * minute, a trailing one that waits it out) when the write stored something;
 * the command never waits for it, and it never fails the command.
 */
export async function withWritingMemory<T>(flags: SharedFlags, fn: (memory: Memory, config: Config) => Promise<T>): Promise<T> {
  let config: Config | undefined;
  const out = await withMemory(flags, (memory, c) => {
    config = c;
    return fn(memory, c);
  });
  if (config && config.url === undefined && config.file.sync !== undefined) {
    const { backgroundSync, wroteSomething } = await import("../sync/background.ts");
    if (wroteSomething(out)) {
      backgroundSync(config, { appended: 1, spawn: () => syncDetached(flags), spawnTrailing: () => syncDetached(flags, { trailing: true }) });
    }
  }
  return out;
}
