/**
 * Stages 2 and 3 of a PostgreSQL search (search.ts): the rows stage 1 chose
 * are read through a bounded window and ranked by src/search/rank.ts, as the
 * SQLite engine ranks them; the best turns' conversation neighbours (one
 * statement for all) are scored too and lift them. A hit's snippet comes
 * from that window only.
 */
import type { SQL } from "bun";
import { countTerms } from "../../search/match.ts";
import type { Term } from "../../search/query.ts";
import { bm25, score } from "../../search/rank.ts";
import { snippet } from "../../search/snippet.ts";
import type { SearchInput } from "../../schema/ops.ts";
import type { SearchHit } from "../../schema/results.ts";
import { Params, filterSql } from "./search-filter.ts";

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

/** Stage 1's outcome: the rows to read and rank, best first, the terms' idfs, and which rows hold which terms. */
export interface Stage {
  lsns: number[];
  idfs: number[];
  has(lsn: number, term: number): boolean;
}

/** Stages 2 and 3: the rows read through a window and ranked, the best turns' neighbours scored too. */
export async function rankRows(tx: SQL, tenant: string, input: SearchInput, terms: Term[], limit: number, stage: Stage): Promise<SearchHit[]> {
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
