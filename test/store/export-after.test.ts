/**
 * Issue 20: `exportTape({after})` on SQLite is a bounded query: the records
 * after the LSN (the contract in _export-after.ts), read as a range of the
 * tape's key, never the rows before it.
 */
import type { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";
import { exportAfterContract, lsns } from "./_export-after.ts";

test("SQLite: export after an LSN yields the records after it, read as a range of the tape's key", async () => {
  using dir = tempDir();
  const store = openSqliteStore(dir.path);
  try {
    await exportAfterContract(store);
    // Every statement the export runs, planned: none scans the tape from its start.
    const seen: string[] = [];
    const db = store.db as Database;
    const query = db.query.bind(db);
    Object.assign(db, {
      query: (sql: string) => {
        seen.push(sql);
        return query(sql);
      },
    });
    expect(await lsns(store, { after: 4 })).toEqual([5, 6]);
    const tapeSelect = seen.filter((s) => /FROM tape\s/.test(s) && /ORDER BY lsn/.test(s));
    expect(tapeSelect.length).toBe(1);
    const plan = (query(`EXPLAIN QUERY PLAN ${tapeSelect[0]}`).all(4) as { detail: string }[]).map((p) => p.detail);
    expect(plan).toEqual(["SEARCH tape USING INTEGER PRIMARY KEY (rowid>?)"]);
  } finally {
    store.close();
  }
});
