/**
 * Push (DESIGN.md 16): what this store wrote itself that the server has not
 * seen, in local LSN order, each record under its sync key. Turns go in
 * appends of up to 256 entries of one session (the existing write route:
 * one request per run of a session); facts, links, objects and forgets one
 * request each. A turn too large for a JSON body once escaped goes alone,
 * its content unescaped (`POST /v1/sync/turn`). The pushed cursor moves, in
 * the journal, only after the server acknowledged every record it covers; a
 * record sent again after a kill is a duplicate the server recognises by
 * its key (I3).
 */
import { ZeroDbError } from "../errors.ts";
import { APPEND_MAX_ENTRIES } from "../limits.ts";
import type { AppendResult } from "../schema/results.ts";
import { SYNC_TURN_TYPE } from "../schema/sync.ts";
import type { TapeRecord } from "../schema/tape.ts";
import { errorCode } from "./errors.ts";
import { BATCH_MAX_BYTES, LOCAL_PAGE, type SyncContext, entryBytes, forgetTranslated, take, withOrigin } from "./context.ts";
import { parseSyncKey, syncKey } from "./identity.ts";
import type { Mapping } from "./journal.ts";

/** What a push moved. */
export interface PushCounts {
  pushed: number;
  objects_sent: number;
  objects_skipped: number;
}

type Turn = Extract<TapeRecord, { session: string }>;

/** Pushes everything after the pushed cursor. */
export async function push(ctx: SyncContext): Promise<PushCounts> {
  const counts: PushCounts = { pushed: 0, objects_sent: 0, objects_skipped: 0 };
  const { journal, self } = ctx;
  let batch: Turn[] = [];
  let batchBytes = 0;

  const flush = async (through: number) => {
    if (batch.length > 0) {
      const session = batch[0]!.session;
      const entries = batch.map((t) => ({
        role: t.role,
        content: t.content,
        meta: withOrigin(t.meta, { store: self, lsn: t.lsn }),
        idem_key: syncKey({ store: self, lsn: t.lsn }),
      }));
      const res = await ctx.remote.append({ session, entries });
      const maps = batch.map((t, i): Mapping => ({ store: self, lsn: t.lsn, server: res.entries[i]!.lsn, local: t.lsn }));
      counts.pushed += batch.length;
      batch = [];
      batchBytes = 0;
      journal.commit({ maps, pushed: through });
      ctx.onProgress?.("push", counts.pushed);
    } else {
      journal.commit({ pushed: through });
    }
  };

  let after = journal.pushed();
  for (;;) {
    const page = await take(ctx.store.exportTape({ tenant: ctx.local.tenant, after }), LOCAL_PAGE);
    if (page.length === 0) break;
    for (const rec of page) {
      // Forgotten before it was pushed: its content never leaves this store.
      if ("forgotten_by" in rec) continue;
      // A replica (pulled from the server) is never pushed back.
      if (isReplica(ctx, rec)) continue;
      if (rec.kind === "turn") {
        const bytes = entryBytes({ ...rec, meta: withOrigin(rec.meta, { store: self, lsn: rec.lsn }) });
        if (bytes > BATCH_MAX_BYTES) {
          await flush(rec.lsn - 1);
          const server = await pushLargeTurn(ctx, rec);
          counts.pushed++;
          journal.commit({ maps: [{ store: self, lsn: rec.lsn, server, local: rec.lsn }], pushed: rec.lsn });
          ctx.onProgress?.("push", counts.pushed);
          continue;
        }
        const full = batch.length >= APPEND_MAX_ENTRIES || batchBytes + bytes > BATCH_MAX_BYTES;
        if (batch.length > 0 && (batch[0]!.session !== rec.session || full)) await flush(batch.at(-1)!.lsn);
        batch.push(rec);
        batchBytes += bytes;
        continue;
      }
      await flush(rec.lsn - 1);
      const one = await pushOne(ctx, rec, counts);
      journal.commit({ maps: one ? [one] : [], pushed: rec.lsn });
      ctx.onProgress?.("push", counts.pushed);
    }
    after = page.at(-1)!.lsn;
    await flush(after);
  }
  return counts;
}

/**
 * Pushes one turn whose JSON would pass the server's body limit: a JSON line
 * of everything but the content, then the content's bytes unescaped. Its LSN
 * on the server.
 */
async function pushLargeTurn(ctx: SyncContext, t: Turn): Promise<number> {
  const origin = { store: ctx.self, lsn: t.lsn };
  const head = JSON.stringify({ session: t.session, role: t.role, meta: withOrigin(t.meta, origin), idem_key: syncKey(origin) });
  const body = Buffer.concat([Buffer.from(`${head}\n`), Buffer.from(t.content)]);
  try {
    const r = await ctx.requester.json<AppendResult>({ method: "POST", path: "/v1/sync/turn", body, headers: { "content-type": SYNC_TURN_TYPE } });
    return r.entries[0]!.lsn;
  } catch (err) {
    // A server without the route answers the generic 404 of an unknown path.
    if (errorCode(err) !== "not_found") throw err;
    throw new ZeroDbError(
      "incompatible",
      `turn ${t.lsn} of session ${t.session} is too large for the server's JSON limit, and the server takes no other way: it runs an older zerodb; upgrade it`,
      { cause: err },
    );
  }
}

/** Whether a local record came from the server rather than from this store. */
export function isReplica(ctx: Pick<SyncContext, "journal" | "self">, rec: TapeRecord): boolean {
  const known = ctx.journal.byLocal(rec.lsn);
  if (known) return known.store !== ctx.self;
  const o = parseSyncKey(rec.idem_key);
  return o !== undefined && o.store !== ctx.self;
}

/** Pushes one record other than a turn; the mapping the journal keeps of it, if any. */
async function pushOne(ctx: SyncContext, rec: Exclude<TapeRecord, { forgotten_by: number }>, counts: PushCounts): Promise<Mapping | undefined> {
  const origin = { store: ctx.self, lsn: rec.lsn };
  const idem_key = syncKey(origin);
  const mapped = (server: number | null): Mapping => ({ ...origin, server, local: rec.lsn });
  switch (rec.kind) {
    case "fact": {
      const r = await ctx.remote.factSet({ key: rec.key, value: rec.value, idem_key });
      counts.pushed++;
      return mapped(r.lsn);
    }
    case "link": {
      const r = await ctx.remote.linkAdd({ url: rec.url, ...(rec.title ? { title: rec.title } : {}), ...(rec.note ? { note: rec.note } : {}), idem_key });
      counts.pushed++;
      return mapped(r.lsn);
    }
    case "object": {
      // A blob the tenant already holds on the server is not sent again (its ref there stands for this one).
      if (await holds(ctx.remote, rec.object)) {
        counts.objects_skipped++;
        return mapped(null);
      }
      const body = await ctx.local.objectGet({ object: rec.object });
      const r = await ctx.remote.objectPut(body.read(), { ...(rec.name ? { name: rec.name } : {}), type: rec.type, idem_key });
      counts.pushed++;
      counts.objects_sent++;
      return mapped(r.lsn);
    }
    case "forget": {
      // The local LSNs it hid, as the server knows those records: what this store had seen when it forgot.
      const { named, first } = await forgetTranslated(ctx.remote, rec.lsns ?? [], (lsn) => ctx.journal.byLocal(lsn)?.server);
      if (named > 0) counts.pushed++;
      return mapped(first);
    }
  }
}

/** Whether a memory holds an object (a missing or foreign digest alike answer not_found, I5). */
export async function holds(memory: SyncContext["remote"], object: string): Promise<boolean> {
  try {
    await memory.objectGet({ object });
    return true;
  } catch (err) {
    if (errorCode(err) === "not_found") return false;
    throw err;
  }
}
