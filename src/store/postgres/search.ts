/**
 * Search on PostgreSQL (DESIGN.md 11). Candidates come from the word index (a
 * GIN index over `tape.words`, Porter stems: words.ts) for any query word, and
 * from the trigram index (pg_trgm over `tape.text`) for a word the word index
 * does not hold (a substring of an identifier, a form the stemmer does not
 * join). One pass over the index matches says which words each row holds
 * (no text read); the rows holding the rarest words are then read through a
 * bounded window and ranked in JavaScript by src/search/rank.ts, as the
 * SQLite engine ranks them.
 *
 * Every figure that ranking uses (how many rows hold a word, how many rows
 * there are) is counted in the caller's tenant only, so BM25 never tells one
 * tenant about another's words (issue 16). As on SQLite, the best turns'
 * conversation neighbours are scored too and lift them. Unlike SQLite, every
 * candidate (at most CANDIDATES) is ranked from its window, and a hit's
 * snippet comes from that window only.
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
import { termQuery } from "./words.ts";

/** Rows whose matches are weighed (newest first past it). */
const MATCH_BOUND = 50_000;
/** Candidates whose text is read and ranked: the best by their words' weights. */
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
    let hits = await searchTerms(tx, tenant, input, parsed.terms, limit);
    // A query whose only words that occur are stopwords still finds them (never empty, DESIGN.md 11).
    if (hits.length === 0 && parsed.all.length > parsed.terms.length && input.all_words !== true)
      hits = await searchTerms(tx, tenant, input, parsed.all, limit);
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

async function searchTerms(tx: SQL, tenant: string, input: SearchInput, terms: Term[], limit: number): Promise<SearchHit[]> {
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
  if (dfs.every((d) => d === 0)) return [];
  if (allWords && dfs.some((d) => d === 0)) return [];
  // How many rows the tenant has (every figure ranking uses is the caller's tenant's only).
  const n = Math.max(
    await count(
      tx,
      `SELECT coalesce((SELECT sum(turns) FROM sessions WHERE tenant = $1), 0) + (SELECT count(*) FROM tape WHERE tenant = $1 AND kind = 'link' AND forgotten_by IS NULL) AS n`,
      [tenant],
    ),
    ...dfs,
  );
  const idfs = dfs.map((df) => idf(df, n));

  // Candidates: the rows holding the rarest words (summed word weights), newest first among equals; only these are read.
  const ranked = [...flags.entries()]
    .filter(([, h]) => !allWords || h.every(Boolean))
    .map(([lsn, h]) => ({ lsn, weight: h.reduce((w, x, i) => w + (x ? idfs[i]! : 0), 0) }))
    .sort((a, b) => b.weight - a.weight || b.lsn - a.lsn)
    .slice(0, CANDIDATES);
  const rows: Record<string, unknown>[] = (
    await tx.unsafe(
      `SELECT t.lsn, t.kind, t.subject, t.data, t.sclass, t.bytes, left(t.text, ${WINDOW_CHARS}) AS win FROM tape t WHERE t.lsn = ANY($1::bigint[])`,
      [ranked.map((r) => r.lsn)],
    )
  ).map((row: Record<string, unknown>) => {
    const h = flags.get(Number(row.lsn))!;
    return { ...row, ...Object.fromEntries(h.map((x, i) => [`h${i}`, x])) };
  });
  const weightAll = idfs.reduce((s, x) => s + x, 0);
  const scoreRow = (row: Record<string, unknown>): Scored => {
    const win = row.win as string;
    const c = countTerms(terms, win, idfs);
    // A term the index found in this row but beyond the window counts once.
    const tf = c.tf.map((f, i) => (f === 0 && row[`h${i}`] === true ? 1 : f));
    const winBytes = Buffer.byteLength(win, "utf8");
    const bytes = Number(row.bytes);
    const length = c.length * (bytes > winBytes ? bytes / Math.max(1, winBytes) : 1);
    const held = tf.map((f) => f > 0);
    const share = held.reduce((s, h, i) => s + (h ? idfs[i]! : 0), 0) / weightAll;
    const own = share > 0 ? score({ share, near: c.near, bm25: bm25(tf, { idfs, length, avgLength: AVG_TOKENS }), cls: Number(row.sclass) }) : 0;
    return { row, lsn: Number(row.lsn), held, own, more: bytes > winBytes };
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
  for (const r of top) {
    const near = await neighbours(tx, tenant, input, r);
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

/** The live turns just before and after a turn in its session that the filter admits, with a window of their text. */
async function neighbours(tx: SQL, tenant: string, input: SearchInput, r: Scored): Promise<Record<string, unknown>[]> {
  const side = async (op: "<" | ">", order: "DESC" | "ASC") => {
    const p = new Params();
    const filter = filterSql(p, tenant, input);
    return tx.unsafe(
      `SELECT t.lsn, t.kind, t.subject, t.data, t.sclass, t.bytes, left(t.text, ${NEIGHBOUR_CHARS}) AS win FROM tape t
       WHERE ${filter} AND t.kind = 'turn' AND t.subject = ${p.add(r.row.subject)} AND t.lsn ${op} ${p.add(r.lsn)} ORDER BY t.lsn ${order} LIMIT ${NEIGHBOURS}`,
      p.values,
    ) as Promise<Record<string, unknown>[]>;
  };
  return [...(await side("<", "DESC")), ...(await side(">", "ASC"))];
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
