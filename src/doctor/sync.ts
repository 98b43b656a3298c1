/** The sync line of `zerodb doctor` (DESIGN.md 16): when this store last synced and how much waits to be pushed. */
import { checkTenant } from "../schema/common.ts";
import type { Store } from "../store/types.ts";
import { type Check, type DoctorContext, check, why } from "./types.ts";

/**
 * Pass with the last sync and the records waiting; warn when sync is
 * configured and never ran, or the journal is unreadable; no line at all
 * for a store that neither synced nor has sync configured.
 */
export async function syncCheck(ctx: DoctorContext, store: Store): Promise<Check | undefined> {
  const configured = ctx.config.file.sync;
  try {
    const { syncStatus, WAITING_COUNT_MAX } = await import("../sync/status.ts");
    const status = await syncStatus(store, checkTenant(ctx.config.tenant ?? "local"));
    if (!status) {
      return configured ? check("sync", "warn", `sync with ${configured.url} is configured but this store never synced`, "zerodb sync") : undefined;
    }
    const waiting = status.waiting >= WAITING_COUNT_MAX ? `at least ${WAITING_COUNT_MAX}` : String(status.waiting);
    return check(
      "sync",
      "pass",
      `last synced ${status.last_sync ?? "never (a sync was interrupted)"} with ${status.url} (tenant ${status.tenant}); ${waiting} records waiting to be pushed`,
    );
  } catch (err) {
    return check("sync", "warn", `cannot read this store's sync state: ${why(err)}`, "zerodb sync");
  }
}
