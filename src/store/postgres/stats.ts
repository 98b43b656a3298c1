/** stats on PostgreSQL: one tenant's counts and sizes per kind, payload histogram, repeats (DESIGN.md D7). */
import type { StatsResult } from "../../schema/results.ts";
import type { Q } from "./_tape.ts";

/** Upper bounds of the payload histogram's buckets, in bytes (the last is open), as the SQLite engine's. */
const BUCKETS = [256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];

/** Figures for one tenant, from one snapshot; nothing in them depends on what other tenants hold. */
export function stats(sql: Q, tenant: string): Promise<StatsResult> {
  return sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx): Promise<StatsResult> => {
    const kinds = await tx`SELECT kind, count(*) AS count, coalesce(sum(bytes), 0) AS bytes FROM tape
      WHERE tenant = ${tenant} AND forgotten_by IS NULL GROUP BY kind`;
    const of = (k: string) => {
      const r = kinds.find((x: { kind: string }) => x.kind === k);
      return { count: Number(r?.count ?? 0), bytes: Number(r?.bytes ?? 0) };
    };
    const [facts] = await tx`SELECT count(*) AS count, coalesce(sum(t.bytes), 0) AS bytes FROM facts f JOIN tape t ON t.lsn = f.lsn WHERE f.tenant = ${tenant}`;
    const [one] = await tx`SELECT
        (SELECT coalesce(max(lsn), 0) FROM tape WHERE tenant = ${tenant}) AS last_lsn,
        (SELECT count(*) FROM sessions WHERE tenant = ${tenant}) AS sessions,
        (SELECT count(*) FROM tape WHERE tenant = ${tenant} AND kind = 'forget') AS forgets,
        (SELECT count(*) FROM tape WHERE tenant = ${tenant} AND forgotten_by IS NOT NULL) AS forgotten,
        (SELECT coalesce(sum((data->'meta'->>'redacted')::bigint), 0) FROM tape WHERE tenant = ${tenant} AND kind = 'turn'
           AND forgotten_by IS NULL AND jsonb_typeof(data->'meta'->'redacted') = 'number') AS redactions,
        (SELECT coalesce(sum(o.size), 0) FROM objects o WHERE o.digest IN
           (SELECT subject FROM tape WHERE tenant = ${tenant} AND kind = 'object' AND forgotten_by IS NULL)) AS object_bytes`;
    const hist = await tx`SELECT width_bucket(bytes, ${`{${BUCKETS.map((b) => b + 1).join(",")}}`}::bigint[]) AS bucket, count(*) AS count FROM tape
      WHERE tenant = ${tenant} AND kind = 'turn' AND forgotten_by IS NULL GROUP BY bucket`;
    const payload_histogram = [...BUCKETS, null].map((le, i) => ({
      le,
      count: Number(hist.find((h: { bucket: number }) => Number(h.bucket) === i)?.count ?? 0),
    }));
    const [rep] = await tx`SELECT coalesce(sum(c - 1), 0) AS turns, coalesce(sum((c - 1) * b), 0) AS bytes FROM (
        SELECT count(*) AS c, max(bytes) AS b FROM tape
        WHERE tenant = ${tenant} AND kind = 'turn' AND forgotten_by IS NULL GROUP BY content_hash HAVING count(*) > 1) r`;
    const turns = of("turn");
    const repBytes = Number(rep.bytes);
    return {
      tenant,
      last_lsn: Number(one.last_lsn),
      turns,
      sessions: Number(one.sessions),
      facts: { count: Number(facts.count), bytes: Number(facts.bytes) },
      links: of("link"),
      objects: of("object"),
      forgets: Number(one.forgets),
      forgotten: Number(one.forgotten),
      payload_histogram,
      repeated: { turns: Number(rep.turns), bytes: repBytes, share: turns.bytes > 0 ? Math.round((repBytes / turns.bytes) * 1e4) / 1e4 : 0 },
      redactions: Number(one.redactions),
      // The tenant's own bytes only, never the database's size: that would tell one tenant how much the others write (I5).
      disk: { store_bytes: kinds.reduce((s: number, k: { bytes: string }) => s + Number(k.bytes), 0), object_bytes: Number(one.object_bytes) },
    };
  });
}
