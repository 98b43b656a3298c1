/**
 * Stages 2 and 3 of a search and its hits, once for every engine (DESIGN.md
 * 11, "One pipeline"). An engine finds the pool (stage 1, its index look-ups)
 * and reads rows; everything it reads is scored and ranked here. The steps
 * are driven by the engine, which does the reading in its own way (SQLite
 * synchronously inside one read transaction, PostgreSQL awaiting its pool):
 *
 *   const r = new Ranking(...);  r.add(windows of the pool)
 *   r.addDeep(deeper windows of r.deep())      a long turn judged by where its words are
 *   r.addNeighbours(neighbours of r.top())     a turn read in its conversation
 *   r.hits()
 *
 * Scoring is src/search/rank.ts, conversation context src/search/context.ts,
 * snippets src/search/snippet.ts.
 */
import type { SearchHit } from "../schema/results.ts";
import { CONTEXT_TOP, type Near, type Scored as ContextScored, rankInContext, readsConversation, toolIdsOf, versionOf } from "./context.ts";
import { type Counts, countTerms, countedText, termSpans } from "./match.ts";
import { type Term, asksWhatUserSaid, asksWhatUserSaidAfter } from "./query.ts";
import { SearchClass } from "./search-class.ts";
import { AVG_TOKENS, bm25, score } from "./rank.ts";
import { snippet } from "./snippet.ts";

/** Characters of a row read for ranking and its snippet. */
export const WINDOW_CHARS = 4096;
/** Characters of a neighbour read for ranking. */
export const NEIGHBOUR_CHARS = 4096;
/**
 * Characters read of a long turn whose first window misses a word the index
 * says it holds, and how many such turns are read so per search: a long tool
 * result is judged by where its words are, not by its first KiBs (DESIGN.md
 * 11, "Ranking"), at a bounded cost.
 */
export const DEEP_CHARS = 131_072;
export const DEEP_ROWS = 12;

/** A row as an engine reads it: what ranking and a hit need, and a window of its text from its start. */
export interface RowText {
  lsn: number;
  kind: "turn" | "link";
  /** The session of a turn. */
  subject: string | null;
  role: SearchHit["role"];
  /** A link's URL. */
  url?: string;
  /** A turn's meta (only `message_id`, `rewrite`, `origin` and `tool_use_ids` are read). */
  meta?: unknown;
  sclass: number;
  /** The window of its text. */
  win: string;
  /** Bytes of its whole text. */
  bytes: number;
}

/** A row read and scored. */
interface Scored extends ContextScored {
  row: RowText;
  /** The text goes on past the window read. */
  more: boolean;
  /** How often each term occurs in the window read (the index may know of more beyond it). */
  winTf: number[];
}

/** What stage 1 knows: each term's idf, and whether the index says a row holds a term. */
export interface Known {
  idfs: number[];
  has(lsn: number, term: number): boolean;
}

/** One search's ranking, fed by its engine step by step (see the header). */
export class Ranking {
  readonly #scored = new Map<number, Scored>();
  readonly #near = new Map<number, Near>();
  readonly #weightAll: number;
  #top: Scored[] | undefined;

  constructor(
    readonly terms: Term[],
    readonly known: Known,
    readonly opts: { limit: number; allWords: boolean; query?: string },
  ) {
    this.#weightAll = known.idfs.reduce((s, x) => s + x, 0);
    this.#asksUser = opts.query !== undefined && asksWhatUserSaid(opts.query);
    this.#saidAfter = opts.query !== undefined && asksWhatUserSaidAfter(opts.query);
  }

  /** The query asks what the user said after something (query.ts asksWhatUserSaidAfter): the prompt after a match answers it. */
  readonly #saidAfter: boolean;

  /** The query asks what the user said (query.ts asksWhatUserSaid): a prompt is what answers it. */
  readonly #asksUser: boolean;

  /** Scores rows read through a window (the pool, or neighbours). */
  add(rows: readonly RowText[]): void {
    for (const row of rows) this.#scored.set(row.lsn, this.#score(row));
  }

  /** Whether a row was read already. */
  has(lsn: number): boolean {
    return this.#scored.has(lsn);
  }

  /**
   * The long rows read only in part, best first, at most DEEP_ROWS: their
   * deeper windows are read (addDeep), whether or not a term is missing from
   * the first, so a long turn's frequencies come from more of its text.
   */
  deep(): number[] {
    return [...this.#scored.values()]
      .filter((r) => r.more && r.row.win.length < DEEP_CHARS)
      .sort(byOwn)
      .slice(0, DEEP_ROWS)
      .map((r) => r.lsn);
  }

  /** Scores rows again from deeper windows of their text. */
  addDeep(rows: readonly RowText[]): void {
    for (const row of rows) if (this.#scored.has(row.lsn)) this.#scored.set(row.lsn, this.#score(row));
  }

  /** The best turns, whose conversation neighbours are read next (addNeighbours). */
  top(): RowText[] {
    this.#top = [...this.#scored.values()]
      .filter((r) => r.own > 0 && r.row.kind === "turn" && readsConversation(r.cls))
      .sort(byOwn)
      .slice(0, CONTEXT_TOP);
    return this.#top.map((r) => r.row);
  }

  /** A top turn's neighbours (LSNs, nearest first on each side), with the rows of those not read yet (see has). */
  addNeighbours(of: number, near: Near, rows: readonly RowText[]): void {
    this.add(rows);
    this.#near.set(of, near);
  }

  /** The hits, best first. */
  hits(): SearchHit[] {
    if (this.#top === undefined) this.top();
    const top = this.#top!;
    return rankInContext(this.#scored, this.#near, {
      top,
      limit: this.opts.limit,
      allWords: this.opts.allWords,
      saidAfter: this.#saidAfter,
      weights: this.known.idfs,
    }).map(({ r, s, follows }) => toHit(r, { terms: this.terms, idfs: this.known.idfs, s, follows }));
  }

  #score(row: RowText): Scored {
    const { idfs } = this.known;
    const c = countTerms(this.terms, row.win, idfs);
    // A term the index found in this row but beyond the window counts once.
    const winBytes = row.win.length === 0 ? 0 : Buffer.byteLength(row.win, "utf8");
    const more = row.bytes > winBytes;
    // Length in tokens and each term's frequency, extrapolated from the window for a long turn; a term
    // the index found in this row but beyond the window counts once.
    const ratio = more ? row.bytes / Math.max(1, winBytes) : 1;
    const length = c.length * ratio;
    const tf = c.tf.map((f, i) => (f === 0 ? (this.known.has(row.lsn, i) ? 1 : 0) : f * ratio));
    const held = tf.map((f) => f > 0);
    const share = held.reduce((s, h, i) => s + (h ? idfs[i]! : 0), 0) / this.#weightAll;
    // A row read deeper than a window is judged by its best window-sized passage, as every other row is by its first.
    const passage = row.win.length > WINDOW_CHARS && share > 0 ? bestPassage(this.terms, row.win, c, idfs) : undefined;
    const own =
      share > 0
        ? score({
            share,
            near: passage?.near ?? c.near,
            pairs: passage?.pairs ?? c.pairs,
            bm25: passage?.bm25 ?? bm25(tf, { idfs, length, avgLength: AVG_TOKENS }),
            cls: row.sclass,
            weight: this.#weightAll,
            asked: this.#asksUser && row.sclass === SearchClass.prompt,
          })
        : 0;
    const version = row.kind === "turn" ? versionOf(row.subject, row.meta) : undefined;
    const toolIds = row.kind === "turn" ? toolIdsOf(row.meta) : undefined;
    const session = row.kind === "turn" && row.subject !== null ? row.subject : undefined;
    return {
      lsn: row.lsn,
      row,
      held,
      own,
      cls: row.sclass,
      more,
      winTf: c.tf,
      ...(version ? { version } : {}),
      ...(toolIds ? { toolIds } : {}),
      ...(session !== undefined ? { session } : {}),
    };
  }
}

/**
 * A long text judged by its best passage (DESIGN.md 11, "a long turn is
 * judged by where its words are"): windows of WINDOW_CHARS characters, half
 * overlapping, each scored by BM25 as a text of its own length; the best
 * one's BM25, nearness and side-by-side pairs. Read whole and scored as one
 * text, a 78 KiB reference page that answers a question in one section fell
 * below every short turn holding a word of it (BM25's length norm); its
 * frequencies guessed from its first window, it was never read further.
 */
function bestPassage(terms: Term[], text: string, whole: Counts, idfs: readonly number[]): { near: number; pairs: number; bm25: number } {
  // The occurrences the whole text's count found, by character of the text it counted; a query counted by tokens
  // is found again by character.
  const counted = whole.at.chars ? countedText(text) : text;
  const at = whole.at.chars ? whole.at : spansOf(terms, text);
  const chars = WINDOW_CHARS;
  const step = chars / 2;
  const length = Math.round(chars / 6);
  const tf = terms.map(() => 0);
  let best = -1;
  let bestAt = 0;
  let lo = 0;
  for (let start = 0; start === 0 || start + step < counted.length; start += step) {
    while (lo < at.pos.length && at.pos[lo]! < start) lo++;
    tf.fill(0);
    for (let k = lo; k < at.pos.length && at.pos[k]! < start + chars; k++) tf[at.term[k]!]!++;
    const b = bm25(tf, { idfs, length, avgLength: AVG_TOKENS });
    if (b > best) {
      best = b;
      bestAt = start;
    }
  }
  const c = countTerms(terms, counted.slice(bestAt, bestAt + chars), idfs);
  return { near: c.near, pairs: c.pairs, bm25: bm25(c.tf, { idfs, length: c.length, avgLength: AVG_TOKENS }) };
}

/** Where the terms occur in a text, by character, in order. */
function spansOf(terms: Term[], text: string): { pos: number[]; term: number[] } {
  const spans = termSpans(terms, text, Number.POSITIVE_INFINITY);
  return { pos: spans.map((s) => s.start), term: spans.map((s) => s.term) };
}

function byOwn(a: Scored, b: Scored): number {
  return b.own - a.own || b.lsn - a.lsn;
}

function toHit(r: Scored, rank: { terms: Term[]; idfs: number[]; s: number; follows?: number }): SearchHit {
  const { row, held } = r;
  const { terms, idfs, s, follows } = rank;
  const matched = terms.filter((_, i) => held[i]).map((t) => t.text);
  const snip = snippet(row.win, { terms, weights: idfs, more: r.more });
  const sc = Math.round(s * 1000) / 1000;
  if (row.kind === "link") return { lsn: row.lsn, kind: "link", session: null, role: null, snippet: snip, score: sc, matched, url: row.url ?? "" };
  const origin = originOf(row.meta);
  const hit: SearchHit = { lsn: row.lsn, kind: "turn", session: row.subject, role: row.role, snippet: snip, score: sc, matched, ...(origin ? { origin } : {}) };
  return follows === undefined ? hit : { ...hit, follows };
}

/** Which machine wrote a replicated turn: `meta.origin` as sync sets it (src/sync/context.ts), when it has that shape. */
function originOf(meta: unknown): SearchHit["origin"] {
  const o = (meta as { origin?: { store?: unknown; lsn?: unknown } } | undefined)?.origin;
  return o && typeof o.store === "string" && typeof o.lsn === "number" ? { store: o.store, lsn: o.lsn } : undefined;
}
