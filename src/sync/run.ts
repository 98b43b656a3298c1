/**
 * One sync of a local store with a team server (DESIGN.md 16): checks the
 * server before anything is written (reachable, the token good, the tenant
 * the one this store synced with before, a sync protocol this build speaks),
 * then pulls and pushes. Pull goes first: a record pulled is then known as
 * a replica when the push reads past it, and a forget pushed can name the
 * server LSNs of everything this store had seen.
 */
import { httpMemory, whoami } from "../client/http.ts";
import { type Requester, createRequester, serverUrl } from "../client/request.ts";
import { ZeroDbError } from "../errors.ts";
import type { Store } from "../store/types.ts";
import { VERSION } from "../version.ts";
import type { SyncContext } from "./context.ts";
import { errorCode } from "./errors.ts";
import { localStoreId } from "./identity.ts";
import { openJournal, takeSyncLock } from "./journal.ts";
import { fetchPage, pull } from "./pull.ts";
import { push } from "./push.ts";

/** What a sync is given. */
export interface SyncOptions {
  store: Store;
  /** The local tenant the server's tenant is synced into. */
  localTenant: string;
  url: string;
  token: string;
  fetch?: (req: Request) => Promise<Response>;
  onProgress?: SyncContext["onProgress"];
}

/** What a sync did (`zerodb sync --json`). */
export interface SyncResult {
  pushed: number;
  pulled: number;
  objects_sent: number;
  objects_received: number;
  objects_skipped: number;
  /** Pulled fact values older, by server order, than the key's current value here: kept on the server, not made current here. */
  facts_superseded: number;
  url: string;
  tenant: string;
  store: string;
  /** The cursors after the sync: local LSN pushed through, server LSN pulled through. */
  pushed_through: number;
  pulled_through: number;
}

/** A URL as the journal binds it: origin and path, no trailing slash. */
function boundUrl(url: string): string {
  const u = serverUrl(url);
  return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
}

/** Asks who the token is, saying plainly when the server is not there or refuses it. */
async function serverTenant(requester: Requester, url: string): Promise<string> {
  try {
    await requester.json<{ ok: boolean; version: string }>({ method: "GET", path: "/healthz" });
    return await whoami(requester);
  } catch (err) {
    if (errorCode(err) === "unauthorized")
      throw new ZeroDbError("unauthorized", `the server at ${url} refused the token: it is wrong or revoked`, { cause: err });
    throw err;
  }
}

/** Runs one sync; nothing is written locally or on the server before every check passed. */
export async function runSync(opts: SyncOptions): Promise<SyncResult> {
  const url = boundUrl(opts.url);
  const self = localStoreId(opts.store.dataDir);
  const lock = takeSyncLock(opts.store.dataDir);
  try {
    const journal = openJournal(opts.store.dataDir);
    try {
      const requester = createRequester({ url: opts.url, token: opts.token, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
      const tenant = await serverTenant(requester, url);
      const bound = journal.binding();
      if (bound && bound.url !== url) {
        throw new ZeroDbError("conflict", `this store syncs with ${bound.url}, not ${url}: sync is not a merge of two servers (see docs/sync.md)`, {
          field: "url",
        });
      }
      if (bound && bound.tenant !== tenant) {
        throw new ZeroDbError(
          "conflict",
          `the server answers for tenant ${tenant}, but this store syncs with tenant ${bound.tenant} there: refused, nothing written`,
          {
            field: "token",
          },
        );
      }
      if (bound && bound.local_tenant !== opts.localTenant) {
        throw new ZeroDbError("conflict", `this store syncs its tenant ${bound.local_tenant}, not ${opts.localTenant}`, { field: "tenant" });
      }
      // The protocol is checked by reading a page before anything is written.
      await fetchPage({ requester }, { after: journal.pulled(), limit: 1, tenant });
      if (!bound) journal.bind({ url, tenant, local_tenant: opts.localTenant });
      const ctx: SyncContext = {
        store: opts.store,
        local: opts.store.memory(opts.localTenant),
        remote: httpMemory(requester, tenant),
        requester,
        journal,
        self,
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      };
      const pulled = await pull(ctx, tenant);
      const pushed = await push(ctx);
      // What was just pushed sits right after the pulled cursor unless another machine wrote meanwhile: not pulled back.
      journal.skipKnown();
      journal.commit({ state: { last_sync: new Date().toISOString(), version: VERSION } });
      return {
        pushed: pushed.pushed,
        pulled: pulled.pulled,
        objects_sent: pushed.objects_sent,
        objects_received: pulled.objects_received,
        objects_skipped: pushed.objects_skipped,
        facts_superseded: pulled.facts_superseded,
        url,
        tenant,
        store: self,
        pushed_through: journal.pushed(),
        pulled_through: journal.pulled(),
      };
    } finally {
      journal.close();
    }
  } finally {
    lock.release();
  }
}
