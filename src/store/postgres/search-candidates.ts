/**
 * Search's first stage on PostgreSQL (see search.ts): which rows of a tenant
 * hold which query words, from the postings table (migration 003) by
 * index-only scans of its primary key, and the best of them that the
 * caller's filter admits. The lists are the SQLite engine's: per term the
 * newest CANDIDATES_PER_TERM rows (a term with fewer is rare and its list
 * complete), the rare terms' rows that also hold a common word, and when
 * every term is common the newest rows holding all of them.
 */
import type { SQL } from "bun";
import { RowList, rankKnown } from "../../search/candidates.ts";
import type { Term } from "../../search/query.ts";
import { termQuery } from "./words.ts";

/** Rows fetched per term, newest first; a term with fewer is complete. */
export const CANDIDATES_PER_TERM = 1000;
/** Ranked rows handed to the filter check, at most (whole scores). */
const ADMIT_MAX = 4096;
/** A common term's frequency is counted up to this many rows. */
const DF_BOUND = 20_000;

/** The stems that stand for a term in the postings: one per alternative, or null when an alternative is a phrase or a prefix. */
export function postingTerms(term: Term): string[] | null {
  if (term.kind === "phrase") return null;
  const out: string[] = [];
  for (const a of term.alternatives) {
    if (a.prefix || a.stems.length !== 1) return null;
    out.push(a.stems[0]!);
  }
  return out;
}

/** A term as stage 1 looks for it: its stems in the postings, or its word-index query on the tape. */
export interface Lookup {
  stems: string[] | null;
  query: string;
}

export function lookupOf(term: Term): Lookup {
  return { stems: postingTerms(term), query: termQuery(term) };
}

/** The newest rows of the tenant holding a term, at most `cap`. */
export async function newest(tx: SQL, tenant: string, l: Lookup, cap: number): Promise<number[]> {
  if (l.stems === null) {
    const rows: { lsn: string }[] = await tx.unsafe(
      `SELECT lsn FROM tape WHERE tenant = $1 AND forgotten_by IS NULL AND words @@ $2::tsquery ORDER BY lsn DESC LIMIT ${cap}`,
      [tenant, l.query],
    );
    return rows.map((r) => Number(r.lsn));
  }
  let list = new RowList();
  for (const stem of l.stems) {
    const rows: { lsn: string }[] = await tx.unsafe(`SELECT lsn FROM postings WHERE tenant = $1 AND term = $2 ORDER BY lsn DESC LIMIT ${cap}`, [tenant, stem]);
    list = list.union(rows.map((r) => Number(r.lsn)));
  }
  return list.rows.slice(0, cap) as number[];
}

/**
 * The newest rows holding every term of a group, at most `cap`: the rarest
 * term's postings walked newest first, each probed in the others' (index
 * lookups, stopping at the cap). Terms without postings are left to the caller.
 */
async function holdingAll(tx: SQL, tenant: string, group: string[][], cap: number): Promise<number[]> {
  const [driver, ...rest] = group;
  const values: unknown[] = [tenant];
  // One stem: an equality, so the scan of the primary key runs newest first and stops at the cap.
  const is = (column: string, stems: string[]) => {
    values.push(stems.length === 1 ? stems[0]! : stems);
    return stems.length === 1 ? `${column} = $${values.length}` : `${column} = ANY($${values.length}::text[])`;
  };
  const first = is("p.term", driver!);
  const probes = rest.map((stems) => `AND EXISTS (SELECT 1 FROM postings q WHERE q.tenant = $1 AND ${is("q.term", stems)} AND q.lsn = p.lsn)`);
  const rows: { lsn: string }[] = await tx.unsafe(
    `SELECT ${driver!.length === 1 ? "" : "DISTINCT "}p.lsn FROM postings p WHERE p.tenant = $1 AND ${first} ${probes.join(" ")}
     ORDER BY p.lsn DESC LIMIT ${cap}`,
    values,
  );
  return rows.map((r) => Number(r.lsn));
}

/** Which rows hold which terms, as far as stage 1 knows. */
export interface Candidates {
  holders: RowList[];
  /** A term's list is complete (it was not cut at CANDIDATES_PER_TERM). */
  complete: boolean[];
}

/**
 * The newest rows of each term, at most CANDIDATES_PER_TERM: every stem's
 * newest postings in one statement, a phrase's or a prefix's from the word
 * index (`newest`).
 */
export async function termLists(tx: SQL, tenant: string, lookups: Lookup[]): Promise<number[][]> {
  const stems = [...new Set(lookups.flatMap((l) => l.stems ?? []))];
  const byStem = new Map<string, number[]>(stems.map((s) => [s, []]));
  if (stems.length > 0) {
    // One row per stem, its LSNs as one string: thousands of one-column rows cost more to decode.
    const rows: { term: string; lsns: string | null }[] = await tx.unsafe(
      `SELECT x.term, (SELECT string_agg(p.lsn::text, ',') FROM (SELECT lsn FROM postings WHERE tenant = $1 AND term = x.term
         ORDER BY lsn DESC LIMIT ${CANDIDATES_PER_TERM}) p) AS lsns FROM unnest($2::text[]) AS x(term)`,
      [tenant, stems],
    );
    for (const r of rows) if (r.lsns) byStem.set(r.term, r.lsns.split(",").map(Number));
  }
  const out: number[][] = [];
  for (const l of lookups) {
    if (l.stems === null) out.push(await newest(tx, tenant, l, CANDIDATES_PER_TERM));
    else {
      // Each stem's list is newest first; several alternatives are merged.
      let list = new RowList();
      for (const s of l.stems) list = list.union(byStem.get(s)!.sort((a, b) => b - a));
      out.push(list.rows.slice(0, CANDIDATES_PER_TERM) as number[]);
    }
  }
  return out;
}

/** Stage 1's lists (see the header), from each term's newest rows and its count (`termCount`). */
export async function candidates(
  tx: SQL,
  tenant: string,
  opts: { lookups: Lookup[]; lists: number[][]; counts: number[]; idfs: number[] },
): Promise<Candidates> {
  const { lookups, lists, counts, idfs } = opts;
  const holders = lists.map((rows) => new RowList(rows));
  const complete = lists.map((rows) => rows.length < CANDIDATES_PER_TERM);
  const rare = lookups.map((_, i) => i).filter((i) => complete[i] && holders[i]!.size > 0);
  // Only terms with postings take part in the intersections (a phrase or a prefix keeps its own list).
  const common = lookups.map((_, i) => i).filter((i) => !complete[i] && (lookups[i]!.stems?.length ?? 0) > 0);
  if (rare.length > 0 && common.length > 0) {
    // Which common words each of the rare terms' rows holds, exactly: one lookup per row and stem in the
    // postings (the SQLite engine knows only that such a row holds some common word).
    const rareRows = [...new Set(rare.flatMap((i) => holders[i]!.rows))];
    const rows: { term: string; lsns: string }[] = await tx.unsafe(
      `SELECT term, string_agg(lsn::text, ',') AS lsns FROM postings WHERE tenant = $1 AND term = ANY($2::text[]) AND lsn = ANY($3::bigint[])
       GROUP BY term`,
      [tenant, common.flatMap((i) => lookups[i]!.stems!), rareRows],
    );
    const byStem = new Map(rows.map((r) => [r.term, r.lsns.split(",").map(Number)]));
    for (const i of common) {
      const also = [...new Set(lookups[i]!.stems!.flatMap((s) => byStem.get(s) ?? []))].sort((a, b) => b - a);
      holders[i] = holders[i]!.union(also);
    }
  }
  // With a rare term too, as on SQLite: rows holding only common words outrank a row holding the rare word
  // alone only if those words together weigh as much, and then all of them only are looked for.
  const weighs = rare.length === 0 || common.reduce((s, i) => s + idfs[i]!, 0) >= Math.min(...rare.map((i) => idfs[i]!));
  if (common.length > 1 && weighs) {
    // The newest rows holding all the common terms, walked from the rarest.
    const byRarity = [...common].sort((a, b) => counts[a]! - counts[b]!);
    const rows = await holdingAll(
      tx,
      tenant,
      byRarity.map((i) => lookups[i]!.stems!),
      CANDIDATES_PER_TERM,
    );
    for (const i of common) holders[i] = holders[i]!.union(rows);
  }
  return { holders, complete };
}

/** Counts kept per database pool (bounded), per tenant; reused while the tenant has grown or shrunk by less than COUNT_DRIFT. */
const COUNT_CACHE_MAX = 4096;
const COUNT_DRIFT = 0.05;
const counted = new WeakMap<SQL, Map<string, { n: number; total: number }>>();

/**
 * Rows of the tenant holding each term, counted up to DF_BOUND (index-only
 * scans of its postings, every uncounted stem in one statement; a term with
 * several stems counts their sum). A frequency only sets a weight, so a
 * count made while the tenant held nearly as many rows as now is reused.
 * `null` lookups are not counted (0).
 */
export async function termCounts(tx: SQL, cacheKey: SQL, tenant: string, lookups: (Lookup | null)[], total: number): Promise<number[]> {
  let cache = counted.get(cacheKey);
  if (!cache) counted.set(cacheKey, (cache = new Map()));
  const keyOf = (kind: string, s: string) => `${tenant}\u0000${kind}\u0000${s}`;
  const fresh = (key: string) => {
    const known = cache.get(key);
    return known && Math.abs(total - known.total) <= known.total * COUNT_DRIFT ? known.n : undefined;
  };
  const put = (key: string, n: number) => {
    if (cache.size >= COUNT_CACHE_MAX) cache.clear();
    cache.set(key, { n, total });
  };
  const stems = [...new Set(lookups.flatMap((l) => l?.stems ?? []))].filter((s) => fresh(keyOf("s", s)) === undefined);
  if (stems.length > 0) {
    const rows: { term: string; n: string }[] = await tx.unsafe(
      `SELECT x.term, (SELECT count(*) FROM (SELECT 1 FROM postings WHERE tenant = $1 AND term = x.term LIMIT ${DF_BOUND}) c) AS n
       FROM unnest($2::text[]) AS x(term)`,
      [tenant, stems],
    );
    for (const r of rows) put(keyOf("s", r.term), Number(r.n));
  }
  const out: number[] = [];
  for (const l of lookups) {
    if (l === null) out.push(0);
    else if (l.stems !== null) out.push(l.stems.reduce((n, s) => n + (fresh(keyOf("s", s)) ?? 0), 0));
    else {
      let n = fresh(keyOf("q", l.query));
      if (n === undefined) {
        const [row] = await tx.unsafe(
          `SELECT count(*) AS n FROM (SELECT 1 FROM tape WHERE tenant = $1 AND forgotten_by IS NULL AND words @@ $2::tsquery LIMIT ${DF_BOUND}) x`,
          [tenant, l.query],
        );
        n = Number(row.n);
        put(keyOf("q", l.query), n);
      }
      out.push(n);
    }
  }
  return out;
}

/** Every row of the lists, by the idf of the terms it is known to hold, best first (src/search/candidates.ts). */
export function rankCandidates(found: Candidates, idfs: number[]): number[] {
  return rankKnown(found.holders, { idfs, max: ADMIT_MAX });
}
