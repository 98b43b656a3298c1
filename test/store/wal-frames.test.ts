/**
 * What a durable single-entry append writes to the WAL (issue 32): every
 * frame is one page the commit's fsync carries, so the count is the cost the
 * bench's "WAL frames per durable single-entry append" reports. Frames are
 * counted, never timed: the same appends into a fresh store write the same
 * pages on every run.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, statSync } from "node:fs";
import { join } from "node:path";
import { DB_FILE } from "../../src/store/sqlite/paths.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { filler } from "../../scripts/bench/_workload.ts";
import { tempDir } from "../helpers.ts";

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa memory agent session store".split(" ");

/** About 300 bytes of WORDS, deterministic per i (the bench's filler over this smaller vocabulary). */
const note = (i: number) => filler(i, WORDS);

/** The WAL's frames after `n` single-entry appends, checkpoints off, divided by n (https://sqlite.org/fileformat.html#the_write_ahead_log). */
async function framesPerAppend(dir: string, n: number): Promise<number> {
  const store = openSqliteStore(dir);
  try {
    const m = store.memory("local");
    await m.append({ session: "s/wal", entries: [{ role: "note", content: note(0) }] });
    store.db.run("PRAGMA wal_autocheckpoint = 0");
    store.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    for (let i = 1; i <= n; i++) await m.append({ session: "s/wal", entries: [{ role: "note", content: note(i) }] });
    const page = (store.db.query("PRAGMA page_size").get() as { page_size: number }).page_size;
    return (statSync(join(dir, `${DB_FILE}-wal`)).size - 32) / (page + 24) / n;
  } finally {
    store.close();
  }
}

describe("WAL frames per durable append (issue 32)", () => {
  // 9.4 before the word index's leaves were 2000 bytes at most (migration 009), 8.1 after.
  test("200 single-entry appends write at most 8.1 pages each", async () => {
    using dir = tempDir();
    expect(await framesPerAppend(dir.path, 200)).toBeLessThanOrEqual(8.1);
  });

  test("a store of an earlier schema writes 2000-byte leaves from its first open on, and checks clean", async () => {
    using dir = tempDir();
    // Schema 3, made by an earlier release (test/fixtures/old-store/make.ts).
    cpSync(join(import.meta.dir, "..", "fixtures", "old-store", "data"), dir.path, { recursive: true });
    const store = openSqliteStore(dir.path);
    try {
      expect(store.db.query("SELECT v FROM words_config WHERE k = 'pgsz'").get()).toEqual({ v: 2000 });
      await store.memory("local").append({ session: "s/wal", entries: [{ role: "note", content: note(1) }] });
      expect((await store.memory("local").search({ query: "memory agent" })).hits.length).toBeGreaterThan(0);
      expect(await store.check({ full: true })).toMatchObject({ ok: true });
    } finally {
      store.close();
    }
  });
});
