/**
 * Search's first stage on the SQLite engine (see search.ts): which rows hold
 * which query terms, from bounded lists of the word index, and the best of
 * them that the caller's filter admits.
 */
import type { Database } from "bun:sqlite";
import { SearchClass } from "../../../search/search-class.ts";
import { POOL_CHOICE, RowList, choosePool, rankKnown } from "../../../search/candidates.ts";
import { idf } from "../../../search/rank.ts";
import type { SearchInput } from "../../../schema/ops.ts";
import { prefixRange } from "../_tape.ts";
import { tenantToken } from "./word-index.ts";
import { boundOf } from "../../as-of.ts";

/** Rows fetched per term, newest first; a term with fewer is complete. */
export const CANDIDATES_PER_TERM = 1000;
/** Stage 1's rows are checked against the filter this many at a time, and at most ADMIT_MAX of them. */
const ADMIT_CHUNK = 256;
const ADMIT_MAX = 4096;
/** A common term's frequency is counted up to this many rows (beyond it, every term weighs about the same). */
const DF_BOUND = 20_000;

/**
 * How a search's index expressions are scoped to its tenant. While no other
 * tenant holds a live row with text, the index holds the caller's rows only
 * and needs no scope (a scoped look-up costs about twice as much); once
 * another does, every expression is ANDed with the caller's tenant token
 * (word-index.ts). Either way each list and count is the caller's alone.
 */
export interface Scope {
  tenant: string;
  /** The tenant's live rows with text: idf's N, read once per search. */
  rows: number;
  /** Other tenants' rows are in the index too. */
  shared: boolean;
  wrap(expr: string): string;
}

/** The scope of a search by `tenant`, read in the search's own transaction. */
export function scopeOf(db: Database, tenant: string): Scope {
  // Two range searches of tape_ts (tenant, ts) WHERE forgotten_by IS NULL, around the tenant: written as one
  // OR, SQLite scans the whole index instead (6 ms at 100k rows, against 0.01).
  const other = db
    .query(
      `SELECT 1 FROM tape WHERE forgotten_by IS NULL AND tenant < ?1 AND text IS NOT NULL
       UNION ALL SELECT 1 FROM tape WHERE forgotten_by IS NULL AND tenant > ?1 AND text IS NOT NULL LIMIT 1`,
    )
    .get(tenant);
  const rows = liveCount(db, tenant);
  if (other === null) return { tenant, rows, shared: false, wrap: (e) => e };
  const token = tenantToken(tenant);
  return { tenant, rows, shared: true, wrap: (e) => `tenant : "${token}" AND (${e})` };
}

/** SQL conditions (on `tape t`) and their parameters. */
export interface Filter {
  sql: string;
  params: (string | number)[];
}

/** The WHERE conditions every candidate meets: the tenant, live, the caller's filters, no noise unless asked. */
export function filterOf(tenant: string, input: SearchInput): Filter {
  const where = ["t.tenant = ?", "t.forgotten_by IS NULL"];
  const params: (string | number)[] = [tenant];
  if (input.include_noise !== true) {
    where.push("t.sclass <> ?");
    params.push(SearchClass.noise);
  }
  if (input.session !== undefined) {
    where.push("t.kind = 'turn' AND t.subject = ?");
    params.push(input.session);
  }
  if (input.prefix) {
    const range = prefixRange("t.subject", input.prefix);
    where.push(`t.kind = 'turn' AND ${range.sql}`);
    params.push(...range.params);
  }
  if (input.role !== undefined) {
    where.push("t.kind = 'turn' AND json_extract(t.data, '$.role') = ?");
    params.push(input.role);
  }
  const upto = boundOf(input);
  if (upto !== undefined) {
    // as_of (DESIGN.md section 17): only what the tape held at that LSN.
    where.push("t.lsn <= ?");
    params.push(upto);
  }
  return { sql: where.join(" AND "), params };
}

/**
 * Rows matching an FTS5 expression, newest first, at most `cap`. Without a
 * filter the index alone answers (a tenth of the cost: no row of the tape is
 * read), and the rows may belong to other tenants or be noise: `admit` sorts
 * them out later, for the few that matter.
 */
function matching(db: Database, scope: Scope, filter: Filter | null, expr: string, cap: number): number[] {
  const rows = filter
    ? (db
        .query(
          `SELECT w.rowid AS lsn FROM words w JOIN tape t ON t.lsn = w.rowid
           WHERE words MATCH ? AND ${filter.sql} ORDER BY w.rowid DESC LIMIT ?`,
        )
        .values(expr, ...filter.params, cap) as [number][])
    : (db.query("SELECT rowid FROM words WHERE words MATCH ? ORDER BY rowid DESC LIMIT ?").values(scope.wrap(expr), cap) as [number][]);
  return rows.map((r) => r[0]);
}

/** Which rows hold which terms, as far as stage 1 knows. */
export interface Candidates {
  holders: RowList[];
  /** A term's list is complete (it was not cut at CANDIDATES_PER_TERM). */
  complete: boolean[];
}

/** Stage 1's lists (see the header), from the index alone or, with a filter, joined with the tape. */
export function candidates(db: Database, opts: { scope: Scope; filter: Filter | null; exprs: string[]; limit: number; allWords: boolean }): Candidates {
  const { scope, filter, exprs, limit, allWords } = opts;
  const n = exprs.length;
  const complete: boolean[] = [];
  if (allWords) {
    const rows = new RowList(matching(db, scope, filter, exprs.join(" AND "), Math.max(CANDIDATES_PER_TERM, limit * 4)));
    for (let i = 0; i < n; i++) complete.push(rows.size < CANDIDATES_PER_TERM);
    return { holders: exprs.map(() => rows), complete };
  }
  const holders: RowList[] = [];
  for (let i = 0; i < n; i++) {
    const rows = matching(db, scope, filter, exprs[i]!, CANDIDATES_PER_TERM);
    holders.push(new RowList(rows));
    complete.push(rows.length < CANDIDATES_PER_TERM);
  }
  const rare = exprs.filter((_, i) => complete[i] && holders[i]!.size > 0);
  const common = exprs.map((_, i) => i).filter((i) => !complete[i]);
  if (rare.length > 0 && common.length > 0) {
    // Which common terms each of the rare terms' rows holds, exactly: one indexed query per common term
    // (FTS5 intersects the doclists, walking the short one), so such a row is ranked by all it holds.
    const anyRare = rare.length === 1 ? rare[0]! : `(${rare.join(" OR ")})`;
    const cap = rare.reduce((n, e) => n + holders[exprs.indexOf(e)]!.size, 0);
    for (const i of common) holders[i] = holders[i]!.union(matching(db, scope, filter, `${anyRare} AND ${exprs[i]!}`, cap));
  }
  // Rows holding only common words outrank a row holding a rare word only if those words together weigh as much.
  const total = scope.rows;
  const weight = (i: number) => idf(complete[i] ? holders[i]!.size : Math.max(holders[i]!.size, indexCount(db, scope, exprs[i]!, total)), total);
  const rareIdx = exprs.map((_, i) => i).filter((i) => complete[i] && holders[i]!.size > 0);
  if (common.length > 1 && (rare.length === 0 || common.reduce((s, i) => s + weight(i), 0) >= Math.min(...rareIdx.map(weight)))) {
    // The newest rows holding all the common terms. With a rare term too: a row holding several common
    // words can outrank one holding the rare word alone (BM25 sums their weights), and a common word's own
    // list holds only its newest rows, so an older such row is found here or never. The group scans its
    // words' whole doclists when fewer rows than the limit hold them all.
    const rows = matching(db, scope, filter, common.map((i) => exprs[i]).join(" AND "), CANDIDATES_PER_TERM);
    for (const i of common) holders[i] = holders[i]!.union(rows);
  }
  return { holders, complete };
}

/**
 * The best `size` rows of stage 1 that the filter admits, in order. Rows are
 * checked a chunk at a time, best first, and at most ADMIT_MAX of them: a
 * store whose index is mostly other tenants' rows or noise answers from the
 * filtered lists instead (the caller's slow path).
 */
function admit(db: Database, filter: Filter, ranked: number[], size: number): { lsns: number[]; checked: number; bytes: Map<number, number> } {
  const out: number[] = [];
  const bytes = new Map<number, number>();
  let checked = 0;
  // CROSS JOIN keeps SQLite from scanning the tenant's rows by an index: each row is looked up by its LSN.
  const check = db.query(`SELECT t.lsn, t.bytes FROM json_each(?) j CROSS JOIN tape t ON t.lsn = j.value WHERE ${filter.sql}`);
  // The first chunk is twice the pool: when the caller's own rows fill the lists (the usual case) one small check does.
  for (let at = 0, step = Math.min(ADMIT_CHUNK, size * 2); at < ranked.length && at < ADMIT_MAX && out.length < size; at += step, step = ADMIT_CHUNK) {
    const chunk = ranked.slice(at, at + step);
    for (const [lsn, b] of check.values(JSON.stringify(chunk), ...filter.params) as [number, number][]) bytes.set(lsn, b);
    for (const lsn of chunk) if (bytes.has(lsn) && out.length < size) out.push(lsn);
    checked += chunk.length;
  }
  return { lsns: out, checked, bytes };
}

/** Stage 1's outcome: the pool, the terms' idfs, and whether the filtered lists could find more. */
export interface StageOne {
  lsns: number[];
  idfs: number[];
  /**
   * The filter turned most rows away while rows were left unchecked or a
   * list was cut: another tenant or noise fills the index's lists, and lists
   * joined with the tape would find more of this tenant's rows.
   */
  starved: boolean;
}

/** Stage 1: each row scores the idf of the terms it is known to hold; the best the filter admits form the pool. */
export function stageOne(db: Database, opts: { scope: Scope; filter: Filter; exprs: string[]; found: Candidates; size: number }): StageOne {
  const { scope, filter, exprs, found, size } = opts;
  const { holders, complete } = found;
  const total = scope.rows;
  // A capped list says only "at least this many": a common term's frequency is counted (up to a bound) in the tenant's rows.
  const idfs = holders.map((h, i) => idf(complete[i] ? h.size : Math.max(h.size, indexCount(db, scope, exprs[i]!, total)), total));
  const ranked = rankKnown(holders, { idfs, max: ADMIT_MAX });
  // Rows are admitted for several times the pool, which is then chosen among them by their lengths too.
  const { lsns: admitted, checked, bytes } = admit(db, filter, ranked, size * POOL_CHOICE);
  const lsns = choosePool(admitted, { bytes, holders, idfs, size });
  const rejected = checked - admitted.length;
  const more = checked < ranked.length || complete.some((c) => !c);
  return { lsns, idfs, starved: lsns.length < size && more && rejected > lsns.length };
}

/** Counts kept per store (bounded); a count is reused while the index has grown or shrunk by less than COUNT_DRIFT. */
const COUNT_CACHE_MAX = 4096;
const COUNT_DRIFT = 0.05;
const counts = new WeakMap<Database, Map<string, { n: number; total: number }>>();

/**
 * Rows of the whole index holding an expression, counted up to DF_BOUND (a
 * scan of its doclist, about 0.4 ms for a common word at 100k turns). A
 * frequency only sets a weight, so a count made while the index held nearly
 * as many records as now is reused: common words recur from query to query.
 */
function indexCount(db: Database, scope: Scope, expr: string, total: number): number {
  let cache = counts.get(db);
  if (!cache) counts.set(db, (cache = new Map()));
  const key = scope.shared ? `${scope.tenant}\u0000${expr}` : expr;
  const known = cache.get(key);
  if (known && Math.abs(total - known.total) <= known.total * COUNT_DRIFT) return known.n;
  const n = (db.query(`SELECT count(*) AS n FROM (SELECT 1 FROM words WHERE words MATCH ? LIMIT ${DF_BOUND})`).get(scope.wrap(expr)) as { n: number }).n;
  if (cache.size >= COUNT_CACHE_MAX) cache.clear();
  cache.set(key, { n, total });
  return n;
}

/** The tenant's live rows with text (idf's N, like the frequencies it divides), cheaply: its sessions' turns and its links. */
function liveCount(db: Database, tenant: string): number {
  const r = db
    .query(
      `SELECT (SELECT coalesce(sum(turns), 0) FROM sessions WHERE tenant = ?1)
        + (SELECT count(*) FROM tape WHERE tenant = ?1 AND kind = 'link' AND forgotten_by IS NULL) AS n`,
    )
    .get(tenant) as { n: number };
  return Math.max(1, r.n);
}
