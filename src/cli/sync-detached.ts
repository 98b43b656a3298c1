/** The hooks' background sync (src/sync/background.ts decides when): a detached `zerodb sync` of the hook's store. */
import { selfCommand } from "../harness/self.ts";
import type { SharedFlags } from "./args.ts";

/** Starts `zerodb sync --quiet` for the store the hook's flags select, its output redirected: it outlives the hook and never holds it up. */
export function syncDetached(args: SharedFlags): void {
  const { command, prefix } = selfCommand(process.execPath, Bun.main);
  const flags: string[] = [];
  for (const name of ["home", "data-dir", "tenant", "config"] as const) {
    const v = args[name];
    if (typeof v === "string") flags.push(`--${name}`, v);
  }
  Bun.spawn([command, ...prefix, "sync", "--quiet", ...flags], { stdio: ["ignore", "ignore", "ignore"], detached: true }).unref();
}
