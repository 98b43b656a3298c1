/**
 * An append writes its new rows ROWS_PER_INSERT to a statement (insertRows,
 * src/store/sqlite/_tape.ts) and reads each row's LSN off the statement's
 * last one: every entry must come back with the LSN of its own row, in order,
 * across statements, around duplicates, and with a key named twice in one
 * batch (written row by row).
 */
import { describe, expect, test } from "bun:test";
import { ROWS_PER_INSERT } from "../../src/store/sqlite/_tape.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

const content = (i: number) => `entry ${i} mentions word${i}x and nothing else`;

describe("append's multi-row inserts", () => {
  test("a batch over several statements: each LSN is its entry's row, consecutive, and the word index finds each", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    try {
      const m = store.memory("local");
      await m.append({ session: "s/other", entries: [{ role: "note", content: "before" }] });
      const n = ROWS_PER_INSERT * 2 + 7;
      const r = await m.append({ session: "s/a", entries: Array.from({ length: n }, (_, i) => ({ role: "user" as const, content: content(i) })) });
      const lsns = r.entries.map((e) => e.lsn);
      expect(r.entries.every((e) => !e.duplicate)).toBe(true);
      expect(lsns).toEqual(Array.from({ length: n }, (_, i) => lsns[0]! + i));
      expect(lsns[0]).toBe(2);
      const read = await m.read({ session: "s/a", limit: 1000 });
      expect(read.turns.map((t) => [t.lsn, t.content])).toEqual(lsns.map((lsn, i) => [lsn, content(i)]));
      for (const i of [0, ROWS_PER_INSERT - 1, ROWS_PER_INSERT, n - 1]) {
        expect((await m.search({ query: `word${i}x` })).hits.map((h) => h.lsn)).toContain(lsns[i]!);
      }
      const [session] = (await m.sessions({ prefix: "s/a" })).sessions;
      expect(session).toMatchObject({ turns: n, first_lsn: lsns[0], last_lsn: lsns[n - 1] });
      expect(await store.check({ full: true })).toMatchObject({ ok: true });
    } finally {
      store.close();
    }
  });

  test("held keys come back as duplicates with their LSN, the new entries with theirs around them", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    try {
      const m = store.memory("local");
      const held = await m.append({ session: "s/b", entries: [1, 70].map((i) => ({ role: "user" as const, content: content(i), idem_key: `k${i}` })) });
      const entries = Array.from({ length: 80 }, (_, i) => ({ role: "user" as const, content: content(i), idem_key: `k${i}` }));
      const r = await m.append({ session: "s/b", entries });
      expect(r.entries[1]).toEqual({ lsn: held.entries[0]!.lsn, duplicate: true });
      expect(r.entries[70]).toEqual({ lsn: held.entries[1]!.lsn, duplicate: true });
      const fresh = r.entries.filter((e) => !e.duplicate).map((e) => e.lsn);
      expect(fresh).toEqual(Array.from({ length: 78 }, (_, i) => fresh[0]! + i));
      const byLsn = new Map((await m.read({ session: "s/b", limit: 1000 })).turns.map((t) => [t.lsn, t]));
      for (const [i, e] of r.entries.entries()) expect(byLsn.get(e.lsn)).toMatchObject({ content: content(i), idem_key: `k${i}` });
      expect(byLsn.size).toBe(80);
    } finally {
      store.close();
    }
  });

  test("a key named twice in one batch: the second is the first's duplicate, or a conflict when it names another write", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    try {
      const m = store.memory("local");
      const same = { role: "user" as const, content: "same", idem_key: "twice" };
      const r = await m.append({ session: "s/c", entries: [same, { role: "user", content: "other" }, same] });
      expect(r.entries[2]).toEqual({ lsn: r.entries[0]!.lsn, duplicate: true });
      expect(r.entries[1]!.lsn).toBe(r.entries[0]!.lsn + 1);
      await expect(
        m.append({
          session: "s/c",
          entries: [
            { ...same, idem_key: "again" },
            { ...same, idem_key: "again", content: "changed" },
          ],
        }),
      ).rejects.toMatchObject({
        code: "conflict",
        field: "entries.1.idem_key",
      });
      expect((await m.read({ session: "s/c" })).turns.map((t) => t.content)).toEqual(["same", "other"]);
    } finally {
      store.close();
    }
  });

  test("the work trace counts a multi-row insert's VALUES list as no scan, and still reports a table scan", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    try {
      const trace = store.trace!();
      await store.memory("local").append({ session: "s/t", entries: Array.from({ length: 5 }, (_, i) => ({ role: "user" as const, content: content(i) })) });
      expect(trace.scans).toEqual([]);
      store.db.query("SELECT count(*) FROM tape WHERE data LIKE '%user%'").get();
      expect(trace.scans).toEqual([expect.stringMatching(/^SCAN tape in: SELECT count/)]);
    } finally {
      store.close();
    }
  });
});
