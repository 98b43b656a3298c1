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
 *    all of them and all but one (search-candidates.ts). A common term's
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
import { SearchClass } from "../../search/classify.ts";
import { countTerms } from "../../search/match.ts";
import { type Term, parseQuery } from "../../search/query.ts";
import { bm25, idf, score } from "../../search/rank.ts";
import { snippet } from "../../search/snippet.ts";
import { PAGE_DEFAULT } from "../../limits.ts";
import type { SearchInput } from "../../schema/ops.ts";
import type { SearchHit, SearchResult } from "../../schema/results.ts";
import { prefixEnd } from "../ranges.ts";
import { CANDIDATES_PER_TERM, candidates, lookupOf, rankCandidates, termCounts, termLists } from "./search-candidates.ts";
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
/** The best turns whose conversation neighbours are read. */
const CONTEXT_TOP = 12;
/** Turns on each side of a turn that count as its neighbours. */
const NEIGHBOURS = 3;
/** Characters of a neighbour read for ranking. */
const NEIGHBOUR_CHARS = 4096;
/** How much of its best neighbour's score a turn gains. */
const CONTEXT_WEIGHT = 0.5;
/** BM25's average record length, in tokens (as the SQLite engine's). */
const AVG_TOKENS = 80;
/** Characters of a row read for ranking and its snippet. */
const WINDOW_CHARS = 4096;

/** Positional parameters for one statement. */
class Params {
  readonly values: unknown[] = [];
  /** Adds a value; its placeholder. */
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/** The WHERE conditions every candidate meets: the tenant, live, the caller's filters, no noise unless asked. */
function filterSql(p: Params, tenant: string, input: SearchInput): string {
  const where = [`t.tenant = ${p.add(tenant)}`, "t.forgotten_by IS NULL", "t.text IS NOT NULL"];
  if (input.include_noise !== true) where.push(`t.sclass <> ${p.add(SearchClass.noise)}`);
  if (input.session !== undefined) where.push(`t.kind = 'turn' AND t.subject = ${p.add(input.session)}`);
  if (input.prefix) {
    const end = prefixEnd(input.prefix);
    where.push(`t.kind = 'turn' AND t.subject >= ${p.add(input.prefix)}${end === null ? "" : ` AND t.subject < ${p.add(end)}`}`);
  }
  if (input.role !== undefined) where.push(`t.kind = 'turn' AND t.data->>'role' = ${p.add(input.role)}`);
  return where.join(" AND ");
}

/** A LIKE pattern that matches `s` anywhere, its wildcards escaped. */
function anywhere(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Whether the trigram index can look for a term: one token of three characters or more. */
function trigramFits(term: Term): boolean {
  const one = term.alternatives[0]!;
  return term.kind !== "phrase" && one.tokens.length === 1 && one.tokens[0]!.length >= 3;
}

/** The condition under which a row holds a term: the word index, or for a one-token term the trigram index. */
function holds(p: Params, term: Term, trigram: boolean): string {
  const words = `t.words @@ ${p.add(termQuery(term))}::tsquery`;
  if (!trigram || !trigramFits(term)) return words;
  return `(${words} OR t.text ILIKE ${p.add(anywhere(term.alternatives[0]!.tokens[0]!))})`;
}

/** Hits, best first; forgotten rows have no text and no index entries. */
export async function search(sql: SQL, tenant: string, input: SearchInput): Promise<SearchResult> {
  const parsed = parseQuery(input.query);
  const limit = input.limit ?? PAGE_DEFAULT;
  return sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
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

/** How many rows the tenant has (every figure ranking uses is the caller's tenant's only). */
async function tenantRows(tx: SQL, tenant: string): Promise<number> {
  return count(
    tx,
    `SELECT coalesce((SELECT sum(turns) FROM sessions WHERE tenant = $1), 0) + (SELECT count(*) FROM tape WHERE tenant = $1 AND kind = 'link' AND forgotten_by IS NULL) AS n`,
    [tenant],
  );
}

/** Stage 1's outcome: the rows to read and rank, best first, the terms' idfs, and which rows hold which terms. */
interface Stage {
  lsns: number[];
  idfs: number[];
  has(lsn: number, term: number): boolean;
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
  const found = await candidates(tx, tenant, { lookups, lists, pool: size, counts });
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

/** Stages 2 and 3: the rows read through a window and ranked, the best turns' neighbours scored too. */
async function rankRows(tx: SQL, tenant: string, input: SearchInput, terms: Term[], limit: number, stage: Stage): Promise<SearchHit[]> {
  const allWords = input.all_words === true;
  const { idfs } = stage;
  if (stage.lsns.length === 0) return [];
  const rows: Record<string, unknown>[] = await tx.unsafe(
    `SELECT t.lsn, t.kind, t.subject, t.data, t.sclass, t.bytes, left(t.text, ${WINDOW_CHARS}) AS win FROM tape t WHERE t.lsn = ANY($1::bigint[])`,
    [stage.lsns],
  );
  const weightAll = idfs.reduce((s, x) => s + x, 0);
  const scoreRow = (row: Record<string, unknown>): Scored => {
    const win = row.win as string;
    const lsn = Number(row.lsn);
    const c = countTerms(terms, win, idfs);
    // A term the index found in this row but beyond the window counts once.
    const tf = c.tf.map((f, i) => (f === 0 && stage.has(lsn, i) ? 1 : f));
    const winBytes = Buffer.byteLength(win, "utf8");
    const bytes = Number(row.bytes);
    const length = c.length * (bytes > winBytes ? bytes / Math.max(1, winBytes) : 1);
    const held = tf.map((f) => f > 0);
    const share = held.reduce((s, h, i) => s + (h ? idfs[i]! : 0), 0) / weightAll;
    const own = share > 0 ? score({ share, near: c.near, bm25: bm25(tf, { idfs, length, avgLength: AVG_TOKENS }), cls: Number(row.sclass) }) : 0;
    return { row, lsn, held, own, more: bytes > winBytes };
  };
  const scored = new Map<number, Scored>();
  for (const row of rows) {
    const r = scoreRow(row);
    scored.set(r.lsn, r);
  }
  // A turn is read in its conversation (as the SQLite engine does): the best turns' neighbours are
  // scored too, and each turn gains from its best neighbour, e.g. the answer after a question that
  // holds the query's words.
  const top = [...scored.values()]
    .filter((r) => r.own > 0 && r.row.kind === "turn")
    .sort(byOwn)
    .slice(0, CONTEXT_TOP);
  const context = new Map<number, number>();
  const lift = (lsn: number, by: number) => context.set(lsn, Math.max(context.get(lsn) ?? 0, by));
  const nearOf = new Map<number, Record<string, unknown>[]>();
  for (const row of await neighbours(tx, tenant, input, top)) {
    const { of, ...rest } = row;
    const list = nearOf.get(Number(of));
    if (list) list.push(rest);
    else nearOf.set(Number(of), [rest]);
  }
  for (const r of top) {
    const near = nearOf.get(r.lsn) ?? [];
    for (const row of near) if (!scored.has(Number(row.lsn))) scored.set(Number(row.lsn), scoreRow(row));
    for (const row of near) {
      const other = scored.get(Number(row.lsn))!;
      // What a neighbour adds beyond the turn's own match: two turns saying the same lift neither.
      lift(other.lsn, r.own - other.own);
      lift(r.lsn, other.own - r.own);
    }
  }
  return [...scored.values()]
    .filter((r) => r.own > 0 && (!allWords || r.held.every(Boolean)))
    .map((r) => ({ ...r, s: r.own + CONTEXT_WEIGHT * (context.get(r.lsn) ?? 0) }))
    .sort((a, b) => b.s - a.s || b.lsn - a.lsn)
    .slice(0, limit)
    .map(({ row, held, s, more }) => toHit(row, terms, idfs, held, s, more));
}

/** A row with its own score (zero when it holds no query word) and the words it holds. */
interface Scored {
  row: Record<string, unknown>;
  lsn: number;
  held: boolean[];
  own: number;
  more: boolean;
}

function byOwn(a: Scored, b: Scored): number {
  return b.own - a.own || b.lsn - a.lsn;
}

/**
 * The live turns just before and after each of some turns in its session
 * that the filter admits, with a window of their text: one statement for
 * all of them, each row naming the turn (`of`) it neighbours.
 */
async function neighbours(tx: SQL, tenant: string, input: SearchInput, rs: Scored[]): Promise<Record<string, unknown>[]> {
  if (rs.length === 0) return [];
  const p = new Params();
  const of = p.add(rs.map((r) => r.lsn));
  const subjects = p.add(rs.map((r) => r.row.subject as string));
  const filter = filterSql(p, tenant, input);
  const side = (op: "<" | ">", order: "DESC" | "ASC") =>
    `(SELECT t.lsn, t.kind, t.subject, t.data, t.sclass, t.bytes, left(t.text, ${NEIGHBOUR_CHARS}) AS win FROM tape t
      WHERE ${filter} AND t.kind = 'turn' AND t.subject = r.subject AND t.lsn ${op} r.of ORDER BY t.lsn ${order} LIMIT ${NEIGHBOURS})`;
  return tx.unsafe(
    `SELECT r.of, n.* FROM unnest(${of}::bigint[], ${subjects}::text[]) AS r(of, subject)
     CROSS JOIN LATERAL (${side("<", "DESC")} UNION ALL ${side(">", "ASC")}) n`,
    p.values,
  ) as Promise<Record<string, unknown>[]>;
}

function toHit(row: Record<string, unknown>, terms: Term[], idfs: number[], held: boolean[], s: number, more: boolean): SearchHit {
  const data = row.data as { role?: SearchHit["role"]; url?: string };
  const matched = terms.filter((_, i) => held[i]).map((t) => t.text);
  const snip = snippet(row.win as string, { terms, weights: idfs, more });
  const score = Math.round(s * 1000) / 1000;
  const lsn = Number(row.lsn);
  if (row.kind === "link") return { lsn, kind: "link", session: null, role: null, snippet: snip, score, matched, url: data.url ?? "" };
  return { lsn, kind: "turn", session: row.subject as string, role: data.role ?? null, snippet: snip, score, matched };
}
