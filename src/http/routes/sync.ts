/**
 * `GET /v1/sync/tape` (DESIGN.md 16): the token's tenant's tape after a
 * server LSN, a page at a time, what `zerodb sync` pulls. It reads the same
 * export the engines give `zerodb export --after` (a range of the tape's
 * key, never the rows before it), on SQLite and PostgreSQL alike, and only
 * of the tenant the token names (I5).
 */
import { PAGE_MAX, SYNC_PAGE_MAX_BYTES } from "../../limits.ts";
import { SYNC_PROTOCOL, SyncTapeInput, type SyncTapePage } from "../../schema/sync.ts";
import type { Store } from "../../store/types.ts";
import type { RouteGroup } from "../env.ts";
import { queryInput } from "../query.ts";

/** Registers /v1/sync/tape over a store. */
export function syncRoutes(store: Store): RouteGroup {
  return (app) => {
    app.get("/v1/sync/tape", async (c) => {
      const input = queryInput(c.req.url, SyncTapeInput, { after: { int: true }, limit: { int: true } });
      const tenant = c.var.memory.tenant;
      const limit = input.limit ?? PAGE_MAX;
      const records: Record<string, unknown>[] = [];
      let bytes = 0;
      let more = false;
      // Breaking out of the loop closes the engine's read (its snapshot ends with the page).
      for await (const rec of store.exportTape({ tenant, after: input.after ?? 0 })) {
        if (records.length >= limit || (records.length > 0 && bytes >= SYNC_PAGE_MAX_BYTES)) {
          more = true;
          break;
        }
        // A forgotten record says only that its LSN is taken and by which forget: nothing a replica could store.
        const out: Record<string, unknown> = "forgotten_by" in rec ? { lsn: rec.lsn, kind: rec.kind, forgotten_by: rec.forgotten_by } : { ...rec };
        delete out.tenant;
        delete out.op_hash;
        bytes += JSON.stringify(out).length;
        records.push(out);
      }
      const page: SyncTapePage = {
        protocol: SYNC_PROTOCOL,
        tenant,
        records,
        next: more ? (records.at(-1)?.lsn as number) : null,
      };
      return c.json(page);
    });
  };
}
