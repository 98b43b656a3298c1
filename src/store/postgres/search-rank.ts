/**
 * Stages 2 and 3 of a PostgreSQL search (search.ts), read for the pipeline
 * every engine shares (src/search/pipeline.ts): the rows stage 1 chose
 * through a bounded window, a long row deeper where the index says its words
 * lie past that window, and the best turns' conversation neighbours (one
 * statement for all).
 */
import type { SQL } from "bun";
import { AFTER, NEIGHBOURS, type Near } from "../../search/context.ts";
import { DEEP_CHARS, NEIGHBOUR_CHARS, Ranking, type RowText, WINDOW_CHARS } from "../../search/pipeline.ts";
import type { Term } from "../../search/query.ts";
import type { SearchInput } from "../../schema/ops.ts";
import type { SearchHit } from "../../schema/results.ts";
import { decodeJson, decodeText } from "./nul.ts";
import { Params, filterSql } from "./search-filter.ts";

/** Stage 1's outcome: the rows to read and rank, best first, the terms' idfs, and which rows hold which terms. */
export interface Stage {
  lsns: number[];
  idfs: number[];
  has(lsn: number, term: number): boolean;
}

/** Stages 2 and 3: the rows read through a window and ranked, the best turns' neighbours scored too. */
export async function rankRows(tx: SQL, tenant: string, input: SearchInput, terms: Term[], limit: number, stage: Stage): Promise<SearchHit[]> {
  if (stage.lsns.length === 0) return [];
  const ranking = new Ranking(terms, stage, { limit, allWords: input.all_words === true, query: input.query });
  ranking.add(await windows(tx, stage.lsns, WINDOW_CHARS));
  ranking.addDeep(await windows(tx, ranking.deep(), DEEP_CHARS));
  const top = ranking.top();
  const near = new Map<number, Near>(top.map((r) => [r.lsn, { before: [], after: [] }]));
  const fresh: RowText[] = [];
  for (const { of, ...rest } of await neighbours(tx, tenant, input, top)) {
    const row = rowText(rest);
    if (!ranking.has(row.lsn)) fresh.push(row);
    const n = near.get(Number(of))!;
    (row.lsn < Number(of) ? n.before : n.after).push(row.lsn);
  }
  ranking.add(fresh);
  for (const [of, n] of near) {
    // Nearest first on each side (the statement returns them so; sorted to not depend on it).
    n.before.sort((x, y) => y - x);
    n.after.sort((x, y) => x - y);
    ranking.addNeighbours(of, n, []);
  }
  return ranking.hits();
}

/** A row of the tape as the pipeline reads it. */
function rowText(row: Record<string, unknown>): RowText {
  const data = decodeJson((row.data ?? {}) as { role?: RowText["role"]; url?: string; meta?: unknown });
  return {
    lsn: Number(row.lsn),
    kind: row.kind as RowText["kind"],
    subject: (row.subject as string | null) ?? null,
    role: data.role ?? null,
    ...(data.url !== undefined ? { url: data.url } : {}),
    ...(data.meta !== undefined ? { meta: data.meta } : {}),
    sclass: Number(row.sclass),
    win: decodeText(row.win as string),
    bytes: Number(row.bytes),
  };
}

/** Rows by LSN with the first `chars` characters of their text. */
async function windows(tx: SQL, lsns: number[], chars: number): Promise<RowText[]> {
  if (lsns.length === 0) return [];
  const rows: Record<string, unknown>[] = await tx.unsafe(
    `SELECT t.lsn, t.kind, t.subject, t.data, t.sclass, t.bytes, left(t.text, ${chars}) AS win FROM tape t WHERE t.lsn = ANY($1::bigint[])`,
    [lsns],
  );
  return rows.map(rowText);
}

/**
 * The live turns just before and after each of some turns in its session
 * that the filter admits, with a window of their text: one statement for
 * all of them, each row naming the turn (`of`) it neighbours.
 */
async function neighbours(tx: SQL, tenant: string, input: SearchInput, rs: RowText[]): Promise<Record<string, unknown>[]> {
  if (rs.length === 0) return [];
  const p = new Params();
  const of = p.add(rs.map((r) => r.lsn));
  const subjects = p.add(rs.map((r) => r.subject as string));
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
