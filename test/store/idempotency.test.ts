/** I3: one idempotency key names one operation forever. */
import { describe, expect, test } from "bun:test";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

function open() {
  const dir = tempDir();
  const store = openSqliteStore(dir.path);
  return {
    store,
    m: store.memory("local"),
    [Symbol.dispose]() {
      store.close();
      dir[Symbol.dispose]();
    },
  };
}

describe("idempotency keys (I3)", () => {
  test("a retry returns the original LSN with duplicate: true and writes nothing", async () => {
    using s = open();
    const first = await s.m.append({ session: "a", entries: [{ role: "user", content: "hi", meta: { b: 1, a: 2 }, idem_key: "k1" }] });
    const again = await s.m.append({ session: "a", entries: [{ role: "user", content: "hi", meta: { a: 2, b: 1 }, idem_key: "k1" }] });
    expect(again).toEqual({ entries: [{ lsn: first.entries[0]!.lsn, duplicate: true }] });
    expect((await s.m.read({ session: "a" })).turns.length).toBe(1);
    expect((await s.m.stats()).last_lsn).toBe(first.entries[0]!.lsn);
  });

  test("the same key with other content is a conflict, and the whole batch writes nothing", async () => {
    using s = open();
    await s.m.append({ session: "a", entries: [{ role: "user", content: "hi", idem_key: "k1" }] });
    const before = (await s.m.stats()).last_lsn;
    const err = await s.m
      .append({
        session: "a",
        entries: [
          { role: "user", content: "fresh" },
          { role: "user", content: "changed", idem_key: "k1" },
        ],
      })
      .catch((e) => e);
    expect({ code: err.code, field: err.field }).toEqual({ code: "conflict", field: "entries.1.idem_key" });
    expect((await s.m.stats()).last_lsn).toBe(before);
    expect((await s.m.read({ session: "a" })).turns.map((t) => t.content)).toEqual(["hi"]);
  });

  test("a key used by another kind of write is a conflict too", async () => {
    using s = open();
    await s.m.factSet({ key: "f", value: 1, idem_key: "shared" });
    const err = await s.m.append({ session: "a", entries: [{ role: "note", content: "x", idem_key: "shared" }] }).catch((e) => e);
    expect(err.code).toBe("conflict");
    expect(await s.m.factSet({ key: "f", value: 1, idem_key: "shared" })).toEqual({ lsn: 1, duplicate: true });
  });

  test("the key stays reserved after the entry is forgotten: a replay never resurrects it", async () => {
    using s = open();
    const first = await s.m.append({ session: "cap", entries: [{ role: "user", content: "forget me", idem_key: "sess:0:0" }] });
    await s.m.forget({ selector: { session: "cap" } });
    const replay = await s.m.append({ session: "cap", entries: [{ role: "user", content: "forget me", idem_key: "sess:0:0" }] });
    expect(replay).toEqual({ entries: [{ lsn: first.entries[0]!.lsn, duplicate: true }] });
    expect((await s.m.read({ session: "cap" })).turns).toEqual([]);
    expect((await s.m.search({ query: "forget" })).hits).toEqual([]);
    // The forgotten write left no hash to compare with (issue 14 item 4): any replay of its key is that
    // duplicate, and nothing is written; a conflict here would tell a guess of the content from a miss.
    const last = (await s.m.stats()).last_lsn;
    const changed = await s.m.append({ session: "cap", entries: [{ role: "user", content: "other", idem_key: "sess:0:0" }] });
    expect(changed).toEqual({ entries: [{ lsn: first.entries[0]!.lsn, duplicate: true }] });
    expect((await s.m.stats()).last_lsn).toBe(last);
    expect((await s.m.read({ session: "cap" })).turns).toEqual([]);
  });

  test("keys are per tenant", async () => {
    using s = open();
    const a = await s.store.memory("alpha").append({ session: "x", entries: [{ role: "note", content: "a", idem_key: "k" }] });
    const b = await s.store.memory("beta").append({ session: "x", entries: [{ role: "note", content: "b", idem_key: "k" }] });
    expect(a.entries[0]!.duplicate).toBe(false);
    expect(b.entries[0]!.duplicate).toBe(false);
    expect(b.entries[0]!.lsn).toBeGreaterThan(a.entries[0]!.lsn);
  });

  test("two entries of one batch with the same key and content are written once", async () => {
    using s = open();
    const r = await s.m.append({
      session: "a",
      entries: [
        { role: "note", content: "x", idem_key: "k" },
        { role: "note", content: "x", idem_key: "k" },
      ],
    });
    expect(r.entries).toEqual([
      { lsn: 1, duplicate: false },
      { lsn: 1, duplicate: true },
    ]);
  });
});
