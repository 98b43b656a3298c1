/** Full-text search: SQLite FTS5 with BM25 ranking (DESIGN.md D6). */
import type { Database } from "bun:sqlite";
import { invalid } from "../../errors.ts";
import { PAGE_DEFAULT } from "../../limits.ts";
import type { SearchInput } from "../../schema/ops.ts";
import type { SearchHit, SearchResult } from "../../schema/results.ts";
import { prefixRange } from "./_tape.ts";

const WORDISH = /[\p{L}\p{N}]/u;

/**
 * Turns what a person or model typed into an FTS5 query: every word must
 * match, each quoted so FTS5 operators in user text are plain words
 * (https://sqlite.org/fts5.html#full_text_query_syntax); `word*` is a prefix.
 */
export function toFtsQuery(query: string): string {
  const terms: string[] = [];
  for (const raw of query.split(/\s+/)) {
    const star = raw.length > 1 && raw.endsWith("*");
    const word = star ? raw.slice(0, -1) : raw;
    if (!WORDISH.test(word)) continue;
    terms.push(`"${word.replaceAll('"', '""')}"${star ? "*" : ""}`);
  }
  if (terms.length === 0) throw invalid("query", "has no words to search for");
  return terms.join(" ");
}

interface HitRow {
  lsn: number;
  kind: "turn" | "link";
  subject: string | null;
  data: string;
  snippet: string;
  rank: number;
}

/** Hits in BM25 order; forgotten rows are gone from the index and filtered besides. */
export function search(db: Database, tenant: string, input: SearchInput): SearchResult {
  const match = toFtsQuery(input.query);
  const where: string[] = [];
  const params: (string | number)[] = [];
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
  const rows = db
    .query(
      `SELECT t.lsn, t.kind, t.subject, t.data, snippet(fts, 0, '[', ']', '…', 16) AS snippet, bm25(fts) AS rank
       FROM fts JOIN tape t ON t.lsn = fts.rowid
       WHERE fts MATCH ? AND t.tenant = ? AND t.forgotten_by IS NULL ${where.map((w) => `AND ${w}`).join(" ")}
       ORDER BY rank LIMIT ?`,
    )
    .all(match, tenant, ...params, input.limit ?? PAGE_DEFAULT) as HitRow[];
  return { hits: rows.map(toHit) };
}

function toHit(row: HitRow): SearchHit {
  const data = JSON.parse(row.data) as { role?: SearchHit["role"]; url?: string };
  const score = -row.rank;
  if (row.kind === "link") {
    return { lsn: row.lsn, kind: "link", session: null, role: null, snippet: row.snippet, score, url: data.url ?? "" };
  }
  return { lsn: row.lsn, kind: "turn", session: row.subject, role: data.role ?? null, snippet: row.snippet, score };
}
