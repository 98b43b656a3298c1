/**
 * The search section's reference (issue 32): FTS5's own BM25 of the words a
 * question is searched for, over the store's own word index. It must find
 * the turns holding those words, and only by the words zerodb searches for
 * (no timings here).
 */
import { expect, test } from "bun:test";
import { bareQuery, questionFor } from "../../scripts/bench/search.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

test("the bare reference query drops stopwords and ranks the store's own index", async () => {
  expect(bareQuery("why did the deploy timeout?")).toBe('body : ("deploy" OR "timeout")');
  expect(questionFor(7)).toMatch(/^why did \w+ \w+ \w+ \w+\?$/);
  using dir = tempDir("zerodb-bench-bare-");
  const store = openSqliteStore(dir.path, { redact: false });
  try {
    const m = store.memory("bench");
    const r = await m.append({
      session: "bench/s",
      entries: [
        { role: "user", content: "the deploy timed out after the retry" },
        { role: "assistant", content: "nothing about it here" },
        { role: "tool", content: "deploy timeout: retry 3 of 3" },
      ],
    });
    const rows = store.db.query("SELECT rowid FROM words WHERE words MATCH ? ORDER BY rank LIMIT 10").values(bareQuery("why did the deploy timeout?")) as [
      number,
    ][];
    const found = rows.map(([lsn]) => lsn).sort((a, b) => a - b);
    expect(found).toEqual([r.entries[0]!.lsn, r.entries[2]!.lsn]);
  } finally {
    store.close();
  }
});
