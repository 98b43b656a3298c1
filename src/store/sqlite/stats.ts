/** stats: counts and sizes per kind, payload histogram, repeats (DESIGN.md D7). */
import type { Database } from "bun:sqlite";
import type { StatsResult } from "../../schema/results.ts";
import { objectBytes } from "./objects/gc.ts";

/** Upper bounds of the payload histogram's buckets, in bytes (the last is open). */
const BUCKETS = [256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];

/** Figures for one tenant: nothing in them depends on what other tenants hold. */
export function stats(db: Database, tenant: string): StatsResult {
  const kinds = db
    .query(
      `SELECT kind, count(*) AS count, coalesce(sum(bytes), 0) AS bytes FROM tape
       WHERE tenant = ? AND forgotten_by IS NULL GROUP BY kind`,
    )
    .all(tenant) as { kind: string; count: number; bytes: number }[];
  const of = (k: string) => {
    const r = kinds.find((x) => x.kind === k);
    return { count: r?.count ?? 0, bytes: r?.bytes ?? 0 };
  };
  const facts = db
    .query("SELECT count(*) AS count, coalesce(sum(t.bytes), 0) AS bytes FROM facts f JOIN tape t ON t.lsn = f.lsn WHERE f.tenant = ?")
    .get(tenant) as { count: number; bytes: number };
  const one = (sql: string) => Object.values(db.query(sql).get(tenant) as Record<string, number | null>)[0] ?? 0;
  const caseSql = BUCKETS.map((b, i) => `WHEN bytes <= ${b} THEN ${i}`).join(" ");
  const hist = db
    .query(
      `SELECT CASE ${caseSql} ELSE ${BUCKETS.length} END AS bucket, count(*) AS count FROM tape
       WHERE tenant = ? AND kind = 'turn' AND forgotten_by IS NULL GROUP BY bucket`,
    )
    .all(tenant) as { bucket: number; count: number }[];
  const payload_histogram = [...BUCKETS, null].map((le, i) => ({ le, count: hist.find((h) => h.bucket === i)?.count ?? 0 }));
  const rep = db
    .query(
      `SELECT coalesce(sum(c - 1), 0) AS turns, coalesce(sum((c - 1) * b), 0) AS bytes FROM (
         SELECT count(*) AS c, max(bytes) AS b FROM tape
         WHERE tenant = ? AND kind = 'turn' AND forgotten_by IS NULL GROUP BY content_hash HAVING count(*) > 1)`,
    )
    .get(tenant) as { turns: number; bytes: number };
  const turns = of("turn");
  return {
    tenant,
    last_lsn: one("SELECT max(lsn) FROM tape WHERE tenant = ?"),
    turns,
    sessions: one("SELECT count(*) FROM sessions WHERE tenant = ?"),
    facts,
    links: of("link"),
    objects: of("object"),
    forgets: one("SELECT count(*) FROM tape WHERE tenant = ? AND kind = 'forget'"),
    forgotten: one("SELECT count(*) FROM tape WHERE tenant = ? AND forgotten_by IS NOT NULL"),
    payload_histogram,
    repeated: {
      turns: rep.turns,
      bytes: rep.bytes,
      share: turns.bytes > 0 ? Math.round((rep.bytes / turns.bytes) * 1e4) / 1e4 : 0,
    },
    redactions: one(
      `SELECT coalesce(sum(json_extract(data, '$.meta.redacted')), 0) FROM tape
       WHERE tenant = ? AND kind = 'turn' AND forgotten_by IS NULL AND json_type(data, '$.meta.redacted') = 'integer'`,
    ),
    // The tenant's own bytes only, never the store file's or the WAL's size: those grow with every
    // tenant's writes, and would tell one tenant how much the others write and when (I5).
    disk: {
      store_bytes: kinds.reduce((sum, k) => sum + k.bytes, 0),
      // The tenant's own distinct blobs, not the whole tree: a store-wide figure would tell a
      // tenant whether bytes it just put were already there, i.e. held by someone else (I5).
      object_bytes: objectBytes(db, tenant),
    },
  };
}
