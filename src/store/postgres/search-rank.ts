/**
 * Stages 2 and 3 of a PostgreSQL search (search.ts): the rows stage 1 chose
 * are read through a bounded window and ranked by src/search/rank.ts, as the
 * SQLite engine ranks them; the best turns' conversation neighbours (one
 * statement for all) are scored too, lift them, and may be hits themselves
 * (src/search/context.ts). A hit's snippet comes
 * from that window only.
 */
import type { SQL } from "bun";
import { AFTER, CONTEXT_TOP, NEIGHBOURS, type Near, type Scored as ContextScored, rankInContext, readsConversation, versionOf } from "../../search/context.ts";
import { countTerms } from "../../search/match.ts";
import type { Term } from "../../search/query.ts";
import { bm25, score } from "../../search/rank.ts";
import { snippet } from "../../search/snippet.ts";
import type { SearchInput } from "../../schema/ops.ts";
import type { SearchHit } from "../../schema/results.ts";
import { Params, filterSql } from "./search-filter.ts";

/** Characters of a neighbour read for ranking. */
const NEIGHBOUR_CHARS = 4096;
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
    const own =
      share > 0 ? score({ share, near: c.near, pairs: c.pairs, bm25: bm25(tf, { idfs, length, avgLength: AVG_TOKENS }), cls: Number(row.sclass) }) : 0;
    const version = row.kind === "turn" ? versionOf(row.subject as string, (row.data as { meta?: unknown } | null)?.meta) : undefined;
    return { row, lsn, held, own, cls: Number(row.sclass), more: bytes > winBytes, ...(version ? { version } : {}) };
  };
  const scored = new Map<number, Scored>();
  for (const row of rows) {
    const r = scoreRow(row);
    scored.set(r.lsn, r);
  }
  // A turn is read in its conversation, as on the SQLite engine (src/search/context.ts).
  const top = [...scored.values()]
    .filter((r) => r.own > 0 && r.row.kind === "turn" && readsConversation(r.cls))
    .sort(byOwn)
    .slice(0, CONTEXT_TOP);
  const near = new Map<number, Near>(top.map((r) => [r.lsn, { before: [], after: [] }]));
  for (const row of await neighbours(tx, tenant, input, top)) {
    const { of, ...rest } = row;
    const lsn = Number(rest.lsn);
    if (!scored.has(lsn)) scored.set(lsn, scoreRow(rest));
    const n = near.get(Number(of))!;
    (lsn < Number(of) ? n.before : n.after).push(lsn);
  }
  // Nearest first on each side (the statement returns them so; sorted to not depend on it).
  for (const n of near.values()) {
    n.before.sort((x, y) => y - x);
    n.after.sort((x, y) => x - y);
  }
  return rankInContext(scored, near, { top, limit, allWords }).map(({ r, s, follows }) =>
    toHit(r.row, { terms, idfs, held: r.held, s, more: r.more, follows }),
  );
}

/** A row read and scored. */
interface Scored extends ContextScored {
  row: Record<string, unknown>;
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
  const side = (op: "<" | ">", order: "DESC" | "ASC", n: number) =>
    `(SELECT t.lsn, t.kind, t.subject, t.data, t.sclass, t.bytes, left(t.text, ${NEIGHBOUR_CHARS}) AS win FROM tape t
      WHERE ${filter} AND t.kind = 'turn' AND t.subject = r.subject AND t.lsn ${op} r.of ORDER BY t.lsn ${order} LIMIT ${n})`;
  return tx.unsafe(
    `SELECT r.of, n.* FROM unnest(${of}::bigint[], ${subjects}::text[]) AS r(of, subject)
     CROSS JOIN LATERAL (${side("<", "DESC", NEIGHBOURS)} UNION ALL ${side(">", "ASC", AFTER)}) n`,
    p.values,
  ) as Promise<Record<string, unknown>[]>;
}

function toHit(row: Record<string, unknown>, rank: { terms: Term[]; idfs: number[]; held: boolean[]; s: number; more: boolean; follows?: number }): SearchHit {
  const { terms, idfs, held, s, more, follows } = rank;
  const data = row.data as { role?: SearchHit["role"]; url?: string };
  const matched = terms.filter((_, i) => held[i]).map((t) => t.text);
  const snip = snippet(row.win as string, { terms, weights: idfs, more });
  const score = Math.round(s * 1000) / 1000;
  const lsn = Number(row.lsn);
  if (row.kind === "link") return { lsn, kind: "link", session: null, role: null, snippet: snip, score, matched, url: data.url ?? "" };
  const hit: SearchHit = { lsn, kind: "turn", session: row.subject as string, role: data.role ?? null, snippet: snip, score, matched };
  return follows === undefined ? hit : { ...hit, follows };
}
