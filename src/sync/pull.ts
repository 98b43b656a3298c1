/**
 * Pull (DESIGN.md 16): the tenant's records on the server after the pulled
 * cursor, in server LSN order, a page at a time (`GET /v1/sync/tape`),
 * written into the local tenant under their sync keys. What this store
 * pushed itself only has its server LSN noted. The pulled cursor moves, in
 * the journal, after the local writes of the whole page were acknowledged
 * (fsynced, I2); a page read again after a kill writes nothing twice (I3):
 * each write answers `duplicate` with the LSN it kept, which the journal
 * learns then.
 *
 * Facts: the server's order decides. A pulled value is stored unless the
 * key's current local value is later by server order (it reached the server
 * after, or has not reached it yet and will); then the older value is not
 * stored here (the server keeps it in the key's history).
 */
import { APPEND_MAX_ENTRIES } from "../limits.ts";
import type { TapeRecord } from "../schema/tape.ts";
import { SYNC_PROTOCOL, type SyncTapePage } from "../schema/sync.ts";
import { ZeroDbError } from "../errors.ts";
import { BATCH_MAX_BYTES, type SyncContext, entryBytes, forgetTranslated, localRecord, withOrigin } from "./context.ts";
import { errorCode } from "./errors.ts";
import { SERVER_ORIGIN, parseSyncKey, syncKey } from "./identity.ts";
import type { Mapping, Origin } from "./journal.ts";
import { holds } from "./push.ts";

/** What a pull moved. */
export interface PullCounts {
  pulled: number;
  objects_received: number;
  facts_superseded: number;
}

type Live = Exclude<TapeRecord, { forgotten_by: number }>;
type Turn = Extract<TapeRecord, { session: string }>;

/** One page of the server's tape for the token's tenant, checked: the protocol and the tenant are the ones expected. */
export async function fetchPage(ctx: Pick<SyncContext, "requester">, opts: { after: number; limit?: number; tenant?: string }): Promise<SyncTapePage> {
  let page: SyncTapePage;
  try {
    page = await ctx.requester.json<SyncTapePage>({
      method: "GET",
      path: "/v1/sync/tape",
      query: { after: opts.after, ...(opts.limit ? { limit: opts.limit } : {}) },
    });
  } catch (err) {
    // A server without the route answers the generic 404 of an unknown path.
    if (errorCode(err) === "not_found") {
      throw new ZeroDbError("incompatible", "the server does not offer sync (GET /v1/sync/tape): it runs an older zerodb; upgrade it", { cause: err });
    }
    throw err;
  }
  if (!page || typeof page !== "object" || page.protocol !== SYNC_PROTOCOL || !Array.isArray(page.records)) {
    throw new ZeroDbError(
      "incompatible",
      `the server speaks sync protocol ${JSON.stringify(page?.protocol ?? null)}, this zerodb speaks ${SYNC_PROTOCOL}: run the same version on both`,
    );
  }
  if (opts.tenant !== undefined && page.tenant !== opts.tenant) {
    throw new ZeroDbError("conflict", `the server answered for tenant ${page.tenant}, not ${opts.tenant}: nothing was written`, { field: "tenant" });
  }
  return page;
}

/** Pulls everything after the pulled cursor. */
export async function pull(ctx: SyncContext, tenant: string): Promise<PullCounts> {
  const counts: PullCounts = { pulled: 0, objects_received: 0, facts_superseded: 0 };
  let after = ctx.journal.pulled();
  for (;;) {
    const page = await fetchPage(ctx, { after, tenant });
    const records = page.records as unknown as TapeRecord[];
    await pullPage(ctx, records, counts);
    const last = records.at(-1)?.lsn;
    if (last !== undefined) {
      ctx.journal.commit({ pulled: last });
      after = last;
    }
    if (page.next === null || records.length === 0) break;
  }
  return counts;
}

async function pullPage(ctx: SyncContext, records: TapeRecord[], counts: PullCounts): Promise<void> {
  const { journal, self } = ctx;
  let batch: { rec: Turn; origin: Origin }[] = [];
  let batchBytes = 0;
  const entryOf = ({ rec, origin }: { rec: Turn; origin: Origin }) => ({
    role: rec.role,
    content: rec.content,
    meta: withOrigin(rec.meta, origin),
    idem_key: syncKey(origin),
  });
  const flush = async () => {
    if (batch.length === 0) return;
    const res = await ctx.local.append({ session: batch[0]!.rec.session, entries: batch.map(entryOf) });
    const maps = batch.map((b, i): Mapping => ({ ...b.origin, server: b.rec.lsn, local: res.entries[i]!.lsn }));
    counts.pulled += batch.length;
    batch = [];
    batchBytes = 0;
    journal.commit({ maps });
    ctx.onProgress?.("pull", counts.pulled);
  };

  for (const rec of records) {
    if ("forgotten_by" in rec) continue;
    // Already here: this store pushed it, or an earlier page run wrote it and the journal knows.
    if (journal.byServer(rec.lsn)) continue;
    const origin: Origin = parseSyncKey(rec.idem_key) ?? { store: SERVER_ORIGIN, lsn: rec.lsn };
    if (origin.store === self) {
      // Ours, pushed by a run the journal did not hear the answer of: note where the server keeps it.
      journal.commit({ maps: [{ ...origin, server: rec.lsn, local: origin.lsn }] });
      continue;
    }
    if (rec.kind === "turn") {
      const item = { rec, origin };
      const bytes = entryBytes(entryOf(item));
      const full = batch.length >= APPEND_MAX_ENTRIES || batchBytes + bytes > BATCH_MAX_BYTES;
      if (batch.length > 0 && (batch[0]!.rec.session !== rec.session || full)) await flush();
      batch.push(item);
      batchBytes += bytes;
      continue;
    }
    await flush();
    const m = await pullOne(ctx, rec, origin, counts);
    journal.commit({ maps: [m] });
    ctx.onProgress?.("pull", counts.pulled);
  }
  await flush();
}

async function pullOne(ctx: SyncContext, rec: Exclude<Live, Turn>, origin: Origin, counts: PullCounts): Promise<Mapping> {
  const idem_key = syncKey(origin);
  const mapped = (local: number | null): Mapping => ({ ...origin, server: rec.lsn, local });
  switch (rec.kind) {
    case "fact": {
      const keep = await factRule(ctx, rec, origin);
      if (keep !== "write") {
        if (keep === "superseded") counts.facts_superseded++;
        return mapped(typeof keep === "number" ? keep : null);
      }
      const r = await ctx.local.factSet({ key: rec.key, value: rec.value, idem_key });
      counts.pulled++;
      return mapped(r.lsn);
    }
    case "link": {
      const r = await ctx.local.linkAdd({ url: rec.url, ...(rec.title ? { title: rec.title } : {}), ...(rec.note ? { note: rec.note } : {}), idem_key });
      counts.pulled++;
      return mapped(r.lsn);
    }
    case "object": {
      // A blob this tenant already holds is not fetched again.
      if (await holds(ctx.local, rec.object)) return mapped(null);
      const body = await ctx.remote.objectGet({ object: rec.object });
      const r = await ctx.local.objectPut(body.read(), { ...(rec.name ? { name: rec.name } : {}), type: rec.type, idem_key });
      if (r.object !== rec.object) throw new ZeroDbError("corrupt", `the server sent bytes for ${rec.object} that hash to ${r.object}`);
      counts.pulled++;
      counts.objects_received++;
      return mapped(r.lsn);
    }
    case "forget": {
      // The server LSNs it hid, as this store holds those records; what it does not hold (never pulled, or not
      // seen by the forgetting machine) is untouched.
      const { first } = await forgetTranslated(ctx.local, rec.lsns ?? [], (s) => ctx.journal.byServer(s)?.local);
      if (first !== null) counts.pulled++;
      return mapped(first);
    }
  }
}

/**
 * Whether a pulled fact value becomes the key's current value here: "write",
 * "superseded" (the current local value is later by server order), or the
 * local LSN of this very record when an earlier, killed run stored it.
 */
async function factRule(ctx: SyncContext, rec: Extract<TapeRecord, { key: string }>, origin: Origin): Promise<"write" | "superseded" | number> {
  let cur: { lsn: number };
  try {
    cur = await ctx.local.factGet({ key: rec.key });
  } catch (err) {
    if (errorCode(err) === "not_found") return "write";
    throw err;
  }
  const known = ctx.journal.byLocal(cur.lsn);
  if (known) {
    // Pulled, or pushed and acknowledged: its server LSN orders it. One pushed and not yet answered is later.
    if (known.server === null) return known.store === ctx.self ? "superseded" : "write";
    return known.server > rec.lsn ? "superseded" : "write";
  }
  const here = await localRecord(ctx, cur.lsn);
  const key = parseSyncKey(here?.idem_key);
  if (key === undefined || key.store === ctx.self) return "superseded"; // written here, not pushed yet: it will reach the server later
  if (key.store === origin.store && key.lsn === origin.lsn) return cur.lsn;
  return "write"; // an earlier pull the journal did not note: it came before this one in server order
}
