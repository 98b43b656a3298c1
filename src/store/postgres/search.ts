/**
 * Search on PostgreSQL (DESIGN.md 11), in the SQLite engine's stages, so a
 * search's cost is bounded however common its words:
 *
 * 1. Candidates from the postings table (one row per tenant, stem and row,
 *    kept by triggers on the tape: migration 003), by index-only scans of its
 *    primary key and never a page of the tape: per term its newest
 *    CANDIDATES_PER_TERM rows (fewer: the term is rare and its list
 *    complete), which common words the rare terms' rows hold (exactly, one
 *    lookup per row), and when every term is common the newest rows holding
 *    all of them (search-candidates.ts). A common term's
 *    frequency is counted up to a bound, and the count kept while the tenant
 *    grows by less than 5%. Each row scores the idf of the terms it is known
 *    to hold; the best are checked against the filters (live, noise class,
 *    session, prefix, role) until POOL_MIN pass. A word no stem of the
 *    tenant's holds (a substring of an identifier) is looked for through the
 *    trigram index (pg_trgm over `tape.text`). A phrase or a prefix is looked
 *    for in the word index (GIN over `tape.words`, Porter stems: words.ts).
 * 2. When the filters turn most candidates away (a narrow session, noise),
 *    and for all_words, the engine's first way instead: which terms each
 *    filtered row holds, from the word index with the filters applied.
 * 3. The pool is read through a bounded window and ranked in JavaScript by
 *    src/search/rank.ts, as the SQLite engine ranks it; the best turns'
 *    conversation neighbours (one statement for all) are scored too and lift
 *    them. A hit's snippet comes from that window only.
 *
 * Every figure that ranking uses (how many rows hold a word, how many rows
 * there are) is counted in the caller's tenant only, so BM25 never tells one
 * tenant about another's words (issue 16). Index-only scans skip the tape's
 * and the postings' heap only where the visibility map says so: the
 * migration has autovacuum visit the postings often (README, "Team server").
 */
import type { SQL } from "bun";
import { type Term, parseQuery, widenedQuery } from "../../search/query.ts";
import { idf } from "../../search/rank.ts";
import { PAGE_DEFAULT } from "../../limits.ts";
import type { SearchInput } from "../../schema/ops.ts";
import type { SearchHit, SearchResult } from "../../schema/results.ts";
import { CANDIDATES_PER_TERM, candidates, lookupOf, postingTerms, rankCandidates, termCounts, termLists } from "./search-candidates.ts";
import { Params, anywhere, filterSql, holds, trigramFits } from "./search-filter.ts";
import { type Stage, rankRows } from "./search-rank.ts";
import { termQuery } from "./words.ts";

/**
 * Rows ranked in full from the postings, at least; twice the hits asked for
 * when that is more. More than the SQLite engine's 60: many rows tie on the
 * words they hold, and at 100k turns 60 found the turn asked about for 126 of
 * 200 questions, 200 for 138, 400 for 144 (bench "postgres"), p50 16, 21, 29 ms.
 */
const POOL_MIN = 200;
/** Ranked rows are checked against the filter this many at a time, and at most ADMIT_MAX of them. */
const ADMIT_CHUNK = 256;
const ADMIT_MAX = 4096;
/** Rows whose matches are weighed by the filtered word index (newest first past it). */
const MATCH_BOUND = 50_000;
/** Candidates of the filtered word index whose text is read and ranked: the best by their words' weights. */
const CANDIDATES = 400;

/** Hits, best first; forgotten rows have no text and no index entries. */
export async function search(sql: SQL, tenant: string, input: SearchInput): Promise<SearchResult> {
  const asked = parseQuery(input.query);
  const limit = input.limit ?? PAGE_DEFAULT;
  return sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
    const parsed = widenedQuery(asked, await absentTerms(tx, tenant, asked.all));
    let hits = await searchTerms(tx, sql, tenant, input, parsed.terms, limit);
    // A query whose only words that occur are stopwords still finds them (never empty, DESIGN.md 11).
    if (hits.length === 0 && parsed.all.length > parsed.terms.length && input.all_words !== true)
      hits = await searchTerms(tx, sql, tenant, input, parsed.all, limit);
    return { hits };
  });
}

async function count(tx: SQL, query: string, values: unknown[]): Promise<number> {
  const [row] = await tx.unsafe(query, values);
  return Number(row.n);
}

/**
 * Which terms each matching row holds, one statement per term: an exact
 * bitmap scan of the word index checks the tenant and filters on the row and
 * never reads (or decompresses) its words or text again.
 */
async function matchFlags(tx: SQL, tenant: string, input: SearchInput, terms: Term[], trigram: boolean[]): Promise<Map<number, boolean[]>> {
  const flags = new Map<number, boolean[]>();
  for (const [i, term] of terms.entries()) {
    const p = new Params();
    const rows: { lsn: string }[] = await tx.unsafe(
      `SELECT t.lsn FROM tape t WHERE ${filterSql(p, tenant, input)} AND ${holds(p, term, trigram[i]!)} ORDER BY t.lsn DESC LIMIT ${MATCH_BOUND}`,
      p.values,
    );
    for (const { lsn } of rows) {
      const key = Number(lsn);
      let h = flags.get(key);
      if (!h) flags.set(key, (h = terms.map(() => false)));
      h[i] = true;
    }
  }
  return flags;
}

/** Hits for a list of terms: from the postings (the fast path), or from the filtered word index when those starve. */
/** `sql` is the pool the transaction `tx` came from: frequencies counted are kept per pool. */
async function searchTerms(tx: SQL, sql: SQL, tenant: string, input: SearchInput, terms: Term[], limit: number): Promise<SearchHit[]> {
  const n = await tenantRows(tx, tenant);
  const fast = input.all_words === true ? null : await fromPostings(tx, sql, tenant, input, terms, limit, n);
  const stage = fast ?? (await fromWordIndex(tx, tenant, input, terms, n));
  if (stage === null) return [];
  return rankRows(tx, tenant, input, terms, limit, stage);
}

/** The terms with other words (query.ts, widened) that the tenant's rows hold nowhere: a look at the postings, or the word index for a phrase. */
async function absentTerms(tx: SQL, tenant: string, terms: Term[]): Promise<Set<Term>> {
  const absent = new Set<Term>();
  for (const term of terms) {
    if (!term.related) continue;
    const stems = postingTerms(term);
    const held = stems
      ? await tx.unsafe("SELECT 1 FROM postings WHERE tenant = $1 AND term = ANY($2::text[]) LIMIT 1", [tenant, stems])
      : await tx.unsafe("SELECT 1 FROM tape WHERE tenant = $1 AND forgotten_by IS NULL AND words @@ $2::tsquery LIMIT 1", [tenant, termQuery(term)]);
    if (held.length === 0) absent.add(term);
  }
  return absent;
}

/** How many rows the tenant has (every figure ranking uses is the caller's tenant's only). */
async function tenantRows(tx: SQL, tenant: string): Promise<number> {
  return count(
    tx,
    `SELECT coalesce((SELECT sum(turns) FROM sessions WHERE tenant = $1), 0) + (SELECT count(*) FROM tape WHERE tenant = $1 AND kind = 'link' AND forgotten_by IS NULL) AS n`,
    [tenant],
  );
}

/**
 * Stage 1 from the postings (search-candidates.ts): each term's newest rows,
 * ranked by the idf of the terms each is known to hold, the best checked
 * against the filter. Null when the filter admitted none, or turned most
 * rows away while more were left (noise, other sessions, another role): the
 * caller then asks the filtered word index. An empty stage: no row of the
 * tenant holds any word.
 */
async function fromPostings(tx: SQL, sql: SQL, tenant: string, input: SearchInput, terms: Term[], limit: number, n: number): Promise<Stage | null> {
  const lookups = terms.map(lookupOf);
  const lists = await termLists(tx, tenant, lookups);
  // A word no row holds by its stems is looked for through the trigram index (a substring of an identifier).
  for (const [i, term] of terms.entries()) {
    if (lists[i]!.length > 0 || !trigramFits(term)) continue;
    const p = new Params();
    const rows: { lsn: string }[] = await tx.unsafe(
      `SELECT t.lsn FROM tape t WHERE ${filterSql(p, tenant, input)} AND t.text ILIKE ${p.add(anywhere(term.alternatives[0]!.tokens[0]!))}
       ORDER BY t.lsn DESC LIMIT ${CANDIDATES_PER_TERM}`,
      p.values,
    );
    lists[i] = rows.map((r) => Number(r.lsn));
    // Its frequency is its list's (complete) or counted below from the word index, which holds none: the list's.
    lookups[i] = { stems: [], query: lookups[i]!.query };
  }
  if (lists.every((l) => l.length === 0)) return { lsns: [], idfs: [], has: () => false };
  const total = Math.max(1, n);
  // A cut list says only "at least this many": its term's rows are counted (up to a bound).
  const cut = (i: number) => lists[i]!.length >= CANDIDATES_PER_TERM && lookups[i]!.stems?.length !== 0;
  const counted = await termCounts(
    tx,
    sql,
    tenant,
    lookups.map((l, i) => (cut(i) ? l : null)),
    total,
  );
  const counts = lists.map((l, i) => Math.max(l.length, counted[i]!));
  const idfs = counts.map((df) => idf(df, Math.max(n, ...counts)));
  const size = Math.max(POOL_MIN, limit * 2);
  const found = await candidates(tx, tenant, { lookups, lists, counts, idfs });
  const ranked = rankCandidates(found, idfs);
  const { lsns, checked } = await admit(tx, tenant, input, ranked, size);
  const rejected = checked - lsns.length;
  const more = checked < ranked.length || found.complete.some((c) => !c);
  if (lsns.length === 0 || (lsns.length < size && more && rejected > lsns.length)) return null;
  return { lsns, idfs, has: (lsn, i) => found.holders[i]!.has(lsn) };
}

/** The best `size` ranked rows that the filter admits, in order, checked a chunk at a time; and how many were checked. */
async function admit(tx: SQL, tenant: string, input: SearchInput, ranked: number[], size: number): Promise<{ lsns: number[]; checked: number }> {
  const out: number[] = [];
  let checked = 0;
  for (let at = 0, step = Math.min(ADMIT_CHUNK, size * 2); at < ranked.length && at < ADMIT_MAX && out.length < size; at += step, step = ADMIT_CHUNK) {
    const chunk = ranked.slice(at, at + step);
    const p = new Params();
    const rows: { lsn: string }[] = await tx.unsafe(
      `SELECT t.lsn FROM tape t WHERE t.lsn = ANY(${p.add(chunk)}::bigint[]) AND ${filterSql(p, tenant, input)}`,
      p.values,
    );
    const ok = new Set(rows.map((r) => Number(r.lsn)));
    for (const lsn of chunk) if (ok.has(lsn) && out.length < size) out.push(lsn);
    checked += chunk.length;
  }
  return { lsns: out, checked };
}

/**
 * Stage 1 from the word index with the filter applied (the engine's first
 * way, kept for all_words and for a filter that turns most of the postings'
 * rows away): every filtered row holding a term, newest first up to
 * MATCH_BOUND, its terms known exactly. Null when nothing matches.
 */
async function fromWordIndex(tx: SQL, tenant: string, input: SearchInput, terms: Term[], tenantN: number): Promise<Stage | null> {
  const allWords = input.all_words === true;
  // Which terms each row holds, from the word index; a term it lacks is looked for again through the trigram index.
  const trigram = terms.map(() => false);
  let flags = await matchFlags(tx, tenant, input, terms, trigram);
  const dfOf = (m: Map<number, boolean[]>) => terms.map((_, i) => [...m.values()].reduce((n, h) => n + (h[i] ? 1 : 0), 0));
  let dfs = dfOf(flags);
  const lacking = terms.map((term, i) => dfs[i] === 0 && trigramFits(term));
  if (lacking.some(Boolean)) {
    const again = await matchFlags(tx, tenant, input, terms, lacking);
    const dfsAgain = dfOf(again);
    // Only the lacking terms whose trigram match found rows keep it.
    for (const [i, l] of lacking.entries()) trigram[i] = l && dfsAgain[i]! > 0;
    if (trigram.some(Boolean)) {
      flags = again;
      dfs = dfsAgain;
    }
  }
  if (dfs.every((d) => d === 0)) return null;
  if (allWords && dfs.some((d) => d === 0)) return null;
  const n = Math.max(tenantN, ...dfs);
  const idfs = dfs.map((df) => idf(df, n));
  // Candidates: the rows holding the rarest words (summed word weights), newest first among equals; only these are read.
  const lsns = [...flags.entries()]
    .filter(([, h]) => !allWords || h.every(Boolean))
    .map(([lsn, h]) => ({ lsn, weight: h.reduce((w, x, i) => w + (x ? idfs[i]! : 0), 0) }))
    .sort((a, b) => b.weight - a.weight || b.lsn - a.lsn)
    .slice(0, CANDIDATES)
    .map((r) => r.lsn);
  return { lsns, idfs, has: (lsn, i) => flags.get(lsn)?.[i] === true };
}
