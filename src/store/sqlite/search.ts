/**
 * Search on the SQLite engine (DESIGN.md 11). The word index (FTS5, porter)
 * finds candidates cheaply; ranking happens here, in stages, so that a
 * search's cost is bounded however common its words and however large the
 * turns it matches:
 *
 * 1. For each query term, the newest CANDIDATES_PER_TERM rows of the index
 *    holding it (the index alone: reading the tape for each would cost ten
 *    times as much). A term with fewer rows is "rare" and its list complete;
 *    one more indexed query finds which of the rare terms' rows also hold a
 *    common term (when every term is common: the rows holding all of them,
 *    and all but one). Each row scores the idf of the terms it is known to
 *    hold, and the best are checked against the tenant and the filters. When
 *    none passes (another tenant's rows or noise fill the lists), the lists
 *    are made again joined with the tape (search-candidates.ts).
 * 2. The best rows (POOL_SIZE_MIN, or twice the hits asked for) are read through
 *    a bounded window and ranked by src/search/rank.ts.
 * 3. The best turns' conversation neighbours are scored too: a turn gains
 *    from a neighbour that matches better than it does, and the turns right
 *    after a match (its reply, its tool result) can be hits themselves
 *    (src/search/context.ts).
 *
 * FTS5's own `ORDER BY rank` computes BM25 for every matching row (half a
 * second for a common word in a million turns) and its snippet() grows with
 * the occurrences in a turn (99 s for a 3 MB turn): neither is used.
 * (I9: forget deletes a row's index entries through search-index.ts.)
 */
import type { Database } from "bun:sqlite";
import { AFTER, CONTEXT_TOP, NEIGHBOURS, type Near, type Scored as ContextScored, rankInContext, readsConversation, versionOf } from "../../search/context.ts";
import { countTerms } from "../../search/match.ts";
import { type Term, ftsOf, parseQuery, widenedQuery } from "../../search/query.ts";
import { bm25, score } from "../../search/rank.ts";
import { snippet } from "../../search/snippet.ts";
import { PAGE_DEFAULT } from "../../limits.ts";
import type { SearchInput } from "../../schema/ops.ts";
import type { SearchHit, SearchResult } from "../../schema/results.ts";
import type { RowList } from "../../search/candidates.ts";
import { type Filter, candidates, filterOf, stageOne } from "./search-candidates.ts";

/** Rows ranked in full (stage 2), at least; twice the hits asked for when that is more. */
const POOL_SIZE_MIN = 60;
/** Characters of a neighbour read for ranking. */
const NEIGHBOUR_CHARS = 4096;
/** BM25's average record length, in tokens (a typical captured turn; the tape keeps no running average). */
const AVG_TOKENS = 80;
/** Characters of a turn read for ranking and its snippet. */
const WINDOW_CHARS = 4096;
/** Characters read for the snippet of a hit whose first window holds none of its words. */
const SNIPPET_WINDOW_CHARS = 65_536;

/** A row read through a window of its text. */
interface PoolRow {
  lsn: number;
  kind: "turn" | "link";
  subject: string | null;
  data: string;
  sclass: number;
  win: string;
  /** The text goes on past the window. */
  more: boolean;
  /** The whole text's size over the window's (1 when the window is all of it). */
  scale: number;
}

/** Hits, best first; forgotten rows are gone from the index and filtered besides. */
export function search(db: Database, tenant: string, input: SearchInput): SearchResult {
  const asked = parseQuery(input.query);
  const limit = input.limit ?? PAGE_DEFAULT;
  const filter = filterOf(tenant, input);
  return db
    .transaction((): SearchResult => {
      // A word the index holds nowhere is looked for by its other words (query.ts, widened).
      const occurs = db.query("SELECT 1 FROM words WHERE words MATCH ? LIMIT 1");
      const parsed = widenedQuery(asked, new Set(asked.all.filter((t) => t.related && occurs.get(ftsOf(t)) === null)));
      let hits = searchTerms(db, { filter, terms: parsed.terms, limit, allWords: input.all_words === true });
      // A query whose only words that occur are stopwords still finds them (never empty, DESIGN.md 11).
      if (hits.length === 0 && parsed.all.length > parsed.terms.length && input.all_words !== true) {
        hits = searchTerms(db, { filter, terms: parsed.all, limit, allWords: false });
      }
      return { hits };
    })
    .deferred();
}

/** The hits for a list of terms, best first (the stages of the header). */
function searchTerms(db: Database, opts: { filter: Filter; terms: Term[]; limit: number; allWords: boolean }): SearchHit[] {
  const { filter, terms, limit, allWords } = opts;
  const exprs = terms.map(ftsOf);
  const poolSize = Math.max(POOL_SIZE_MIN, limit * 2);
  let found = candidates(db, { filter: null, exprs, limit, allWords, pool: poolSize });
  let pool = stageOne(db, filter, exprs, found, poolSize);
  // The filter turned most of the index's own lists away (another tenant's words, noise, a narrow
  // session filter): the lists again, joined with the tape, so what this tenant holds is found.
  if (pool.starved) {
    found = candidates(db, { filter, exprs, limit, allWords, pool: poolSize });
    pool = stageOne(db, filter, exprs, found, poolSize);
  }
  const { holders } = found;
  const { idfs } = pool;
  if (pool.lsns.length === 0) return [];

  // Stage 2: read a bounded window of each and rank.
  const scorer = rowScorer(terms, idfs, holders);
  const scored = new Map<number, Scored>();
  for (const row of windows(db, pool.lsns, WINDOW_CHARS)) scored.set(row.lsn, scorer(row));
  // Stage 3: a turn is read in its conversation (src/search/context.ts).
  const top = [...scored.values()]
    .filter((r) => r.own > 0 && r.row.kind === "turn" && readsConversation(r.cls))
    .sort(byOwn)
    .slice(0, CONTEXT_TOP);
  const near = new Map<number, Near>();
  for (const r of top) {
    const n = neighbours(db, filter, r.row);
    near.set(r.lsn, n);
    const fresh = [...n.before, ...n.after].filter((lsn) => !scored.has(lsn));
    for (const row of windows(db, fresh, NEIGHBOUR_CHARS)) scored.set(row.lsn, scorer(row));
  }
  const ranked = rankInContext(scored, near, { top, limit, allWords });
  // A long turn whose words lie beyond the first window: its snippet comes from a wider one.
  const wide = new Map(
    windows(
      db,
      ranked.filter(({ r }) => !r.inWindow && r.row.more).map(({ r }) => r.lsn),
      SNIPPET_WINDOW_CHARS,
    ).map((r) => [r.lsn, r]),
  );
  return ranked.map(({ r, s, follows }) => toHit(wide.get(r.lsn) ?? r.row, { terms, idfs, held: r.held, s, follows }));
}

/** A row read and scored. */
interface Scored extends ContextScored {
  row: PoolRow;
  /** Some query word occurs in the window read (else the snippet needs a wider one). */
  inWindow: boolean;
}

function byOwn(a: Scored, b: Scored): number {
  return b.own - a.own || b.lsn - a.lsn;
}

/** Scores rows by src/search/rank.ts: terms counted in each row's window, the index's word for what lies beyond it. */
function rowScorer(terms: Term[], idfs: number[], holders: RowList[]): (row: PoolRow) => Scored {
  const weightAll = idfs.reduce((s, x) => s + x, 0);
  return (row) => {
    const c = countTerms(terms, row.win, idfs);
    // A term the index found in this row but beyond the window counts once.
    const tf = c.tf.map((f, i) => (f === 0 && holders[i]!.has(row.lsn) ? 1 : f));
    // Length in tokens, extrapolated from the window for a long turn.
    const length = c.length * row.scale;
    const held = tf.map((f) => f > 0);
    const share = held.reduce((s, h, i) => s + (h ? idfs[i]! : 0), 0) / weightAll;
    const own = share > 0 ? score({ share, near: c.near, pairs: c.pairs, bm25: bm25(tf, { idfs, length, avgLength: AVG_TOKENS }), cls: row.sclass }) : 0;
    const version =
      row.kind === "turn" && row.data.includes('"message_id"') ? versionOf(row.subject, (JSON.parse(row.data) as { meta?: unknown }).meta) : undefined;
    return { lsn: row.lsn, row, held, own, cls: row.sclass, inWindow: c.tf.some((f) => f > 0), ...(version ? { version } : {}) };
  };
}

/**
 * Rows by LSN with the first `chars` characters of their text. The text's
 * size is the tape's `bytes` column: `length(text)` would count the
 * characters of every turn whole, however large.
 */
function windows(db: Database, lsns: number[], chars: number): PoolRow[] {
  if (lsns.length === 0) return [];
  const rows = db
    .query(
      `SELECT lsn, kind, subject, data, sclass, bytes, substr(text, 1, ${chars}) AS win
       FROM tape WHERE lsn IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(lsns)) as (Omit<PoolRow, "more" | "scale"> & { bytes: number })[];
  return rows.map(({ bytes, ...row }) => {
    const winBytes = Buffer.byteLength(row.win, "utf8");
    return { ...row, more: bytes > winBytes, scale: bytes > winBytes ? bytes / Math.max(1, winBytes) : 1 };
  });
}

/** The live turns just before and after a turn in its session that the filter admits, nearest first. */
function neighbours(db: Database, filter: Filter, row: PoolRow): Near {
  const q = (op: string, order: string, n: number) =>
    (
      db
        .query(
          `SELECT t.lsn FROM tape t WHERE t.kind = 'turn' AND t.subject = ? AND t.lsn ${op} ? AND t.text IS NOT NULL AND ${filter.sql}
           ORDER BY t.lsn ${order} LIMIT ${n}`,
        )
        .values(row.subject, row.lsn, ...filter.params) as [number][]
    ).map((r) => r[0]);
  return { before: q("<", "DESC", NEIGHBOURS), after: q(">", "ASC", AFTER) };
}

function toHit(row: PoolRow, rank: { terms: Term[]; idfs: number[]; held: boolean[]; s: number; follows?: number }): SearchHit {
  const { terms, idfs, held, s, follows } = rank;
  const data = JSON.parse(row.data) as { role?: SearchHit["role"]; url?: string };
  const matched = terms.filter((_, i) => held[i]).map((t) => t.text);
  const snip = snippet(row.win, { terms, weights: idfs, more: row.more });
  const score = Math.round(s * 1000) / 1000;
  if (row.kind === "link") {
    return { lsn: row.lsn, kind: "link", session: null, role: null, snippet: snip, score, matched, url: data.url ?? "" };
  }
  const hit: SearchHit = { lsn: row.lsn, kind: "turn", session: row.subject, role: data.role ?? null, snippet: snip, score, matched };
  return follows === undefined ? hit : { ...hit, follows };
}
