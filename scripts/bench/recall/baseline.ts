/**
 * The baseline beside zerodb (DESIGN.md 11): a plain stemmed OR-of-words
 * BM25 over the same turns, in an in-memory FTS5 table
 * (https://sqlite.org/fts5.html#the_porter_tokenizer, #the_bm25_function).
 */
import { Database } from "bun:sqlite";

/** An OR-of-words BM25 index over (lsn, content) pairs. */
export function orBaseline(turns: Iterable<[number, string]>) {
  const db = new Database(":memory:");
  db.run("CREATE VIRTUAL TABLE t USING fts5(content, tokenize = 'porter unicode61 remove_diacritics 2')");
  const insert = db.prepare("INSERT INTO t (rowid, content) VALUES (?, ?)");
  db.transaction(() => {
    for (const [lsn, content] of turns) insert.run(lsn, content);
  })();
  const search = db.prepare<{ rowid: number }, [string]>("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10");
  return {
    /** The LSNs of the top 10 turns holding any of the query's words. */
    search(query: string): number[] {
      const words = query.match(/[\p{L}\p{N}]+/gu) ?? [];
      if (words.length === 0) return [];
      return search.all(words.map((w) => `"${w}"`).join(" OR ")).map((r) => r.rowid);
    },
    close: () => db.close(),
  };
}
