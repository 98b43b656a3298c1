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
 *    common term, and (when every term is common, or the common ones
 *    together weigh as much as the rarest) which rows hold all the common
 *    ones. Each row scores the idf of the terms it is known to hold, and the
 *    best are checked against the tenant and the filters. When
 *    none passes (another tenant's rows or noise fill the lists), the lists
 *    are made again joined with the tape (candidates.ts).
 * 2. The best rows (POOL_SIZE_MIN, or twice the hits asked for) are read through
 *    a bounded window and ranked, a long turn by a deeper window where the
 *    index says its words lie past the first (src/search/pipeline.ts).
 * 3. The best turns' conversation neighbours are scored too: a turn gains
 *    from a neighbour that matches better than it does, and the turns right
 *    after a match (its reply, its tool result) can be hits themselves
 *    (src/search/context.ts).
 *
 * Stages 2 and 3 are the same on every engine (src/search/pipeline.ts); this
 * file reads rows for them. Every list and count is the caller's tenant's
 * (candidates.ts, scopeOf), so one tenant's answers never depend on
 * another's data (I5).
 *
 * FTS5's own `ORDER BY rank` computes BM25 for every matching row (half a
 * second for a common word in a million turns) and its snippet() grows with
 * the occurrences in a turn (99 s for a 3 MB turn): neither is used.
 * (I9: forget deletes a row's index entries through word-index.ts.)
 */
import type { Database } from "bun:sqlite";
import { AFTER, NEIGHBOURS, type Near } from "../../../search/context.ts";
import { DEEP_CHARS, NEIGHBOUR_CHARS, Ranking, type RowText, WINDOW_CHARS } from "../../../search/pipeline.ts";
import { type Term, ftsOf, parseQuery, widenedQuery } from "../../../search/query.ts";
import { PAGE_DEFAULT } from "../../../limits.ts";
import type { SearchInput } from "../../../schema/ops.ts";
import type { SearchHit, SearchResult } from "../../../schema/results.ts";
import { type Filter, type Scope, candidates, filterOf, scopeOf, stageOne } from "./candidates.ts";

/** Rows ranked in full (stage 2), at least; twice the hits asked for when that is more. */
const POOL_SIZE_MIN = 60;

/** Hits, best first; forgotten rows are gone from the index and filtered besides. */
export function search(db: Database, tenant: string, input: SearchInput): SearchResult {
  const asked = parseQuery(input.query);
  const limit = input.limit ?? PAGE_DEFAULT;
  const filter = filterOf(tenant, input);
  return db
    .transaction((): SearchResult => {
      const scope = scopeOf(db, tenant);
      // A word the tenant's rows hold nowhere is looked for by its other words (query.ts, widened).
      const occurs = db.query("SELECT 1 FROM words WHERE words MATCH ? LIMIT 1");
      const parsed = widenedQuery(asked, new Set(asked.all.filter((t) => t.related && occurs.get(scope.wrap(ftsOf(t))) === null)));
      let hits = searchTerms(db, { scope, filter, terms: parsed.terms, limit, allWords: input.all_words === true, query: input.query });
      // A query whose only words that occur are stopwords still finds them (never empty, DESIGN.md 11).
      if (hits.length === 0 && parsed.all.length > parsed.terms.length && input.all_words !== true) {
        hits = searchTerms(db, { scope, filter, terms: parsed.all, limit, allWords: false, query: input.query });
      }
      return { hits };
    })
    .deferred();
}

/** The hits for a list of terms, best first (the stages of the header). */
function searchTerms(db: Database, opts: { scope: Scope; filter: Filter; terms: Term[]; limit: number; allWords: boolean; query: string }): SearchHit[] {
  const { scope, filter, terms, limit, allWords, query } = opts;
  const exprs = terms.map(ftsOf);
  const poolSize = Math.max(POOL_SIZE_MIN, limit * 2);
  let found = candidates(db, { scope, filter: null, exprs, limit, allWords });
  let pool = stageOne(db, { scope, filter, exprs, found, size: poolSize });
  // The filter turned most of the index's own lists away (noise, a narrow session filter): the
  // lists again, joined with the tape, so what the filter admits is found.
  if (pool.starved) {
    found = candidates(db, { scope, filter, exprs, limit, allWords });
    pool = stageOne(db, { scope, filter, exprs, found, size: poolSize });
  }
  if (pool.lsns.length === 0) return [];
  const { holders } = found;
  const ranking = new Ranking(terms, { idfs: pool.idfs, has: (lsn, i) => holders[i]!.has(lsn) }, { limit, allWords, query });
  ranking.add(windows(db, pool.lsns, WINDOW_CHARS));
  ranking.addDeep(windows(db, ranking.deep(), DEEP_CHARS));
  for (const row of ranking.top()) {
    const n = neighbours(db, filter, row);
    const fresh = [...n.before, ...n.after].filter((lsn) => !ranking.has(lsn));
    ranking.addNeighbours(row.lsn, n, windows(db, fresh, NEIGHBOUR_CHARS));
  }
  return ranking.hits();
}

/**
 * Rows by LSN with the first `chars` characters of their text. The text's
 * size is the tape's `bytes` column: `length(text)` would count the
 * characters of every turn whole, however large.
 */
function windows(db: Database, lsns: number[], chars: number): RowText[] {
  if (lsns.length === 0) return [];
  const rows = db
    .query(
      `SELECT lsn, kind, subject, data, sclass, bytes, substr(text, 1, ${chars}) AS win
       FROM tape WHERE lsn IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(lsns)) as { lsn: number; kind: "turn" | "link"; subject: string | null; data: string; sclass: number; bytes: number; win: string }[];
  windowsPastNul(db, rows, chars);
  return rows.map((r) => {
    const data = JSON.parse(r.data) as { role?: RowText["role"]; url?: string; meta?: unknown };
    return {
      lsn: r.lsn,
      kind: r.kind,
      subject: r.subject,
      role: data.role ?? null,
      ...(data.url !== undefined ? { url: data.url } : {}),
      ...(data.meta !== undefined ? { meta: data.meta } : {}),
      sclass: r.sclass,
      win: r.win,
      bytes: r.bytes,
    };
  });
}

/**
 * substr() of text stops at a NUL (it walks the text as a C string), so a
 * window shorter than asked for that is not the whole text was cut by one
 * (issue 29): those rows are read again as bytes, as many as `chars`
 * characters can take, and cut to `chars` characters here.
 */
function windowsPastNul(db: Database, rows: { lsn: number; bytes: number; win: string }[], chars: number): void {
  const cut = rows.filter((r) => r.win !== null && fewerCharacters(r.win, chars) && Buffer.byteLength(r.win, "utf8") < r.bytes);
  if (cut.length === 0) return;
  const bytes = db
    .query(`SELECT lsn, substr(CAST(text AS BLOB), 1, ${chars * 4}) AS win FROM tape WHERE lsn IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(cut.map((r) => r.lsn))) as { lsn: number; win: Uint8Array }[];
  const byLsn = new Map(bytes.map((b) => [b.lsn, b.win]));
  const decoder = new TextDecoder();
  for (const r of cut) r.win = firstCharacters(decoder.decode(byLsn.get(r.lsn)), chars);
}

/** Whether a string holds fewer than `n` characters (code points): a surrogate pair is one. */
function fewerCharacters(s: string, n: number): boolean {
  if (s.length < n) return true;
  return s.length < 2 * n && s.length - (s.match(/[\uD800-\uDBFF]/g)?.length ?? 0) < n;
}

/** The first `n` characters (code points, as substr counts them) of a string; a character cut at the end of the bytes lies past them. */
function firstCharacters(s: string, n: number): string {
  if (s.length <= n) return s;
  let i = 0;
  for (let k = 0; k < n && i < s.length; k++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  }
  return s.slice(0, i);
}

/** The LSNs of the live turns just before and after a turn in its session that the filter admits, nearest first. */
function neighbours(db: Database, filter: Filter, row: RowText): Near {
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
