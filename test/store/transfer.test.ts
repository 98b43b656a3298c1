/** export then import into an empty store gives the same records with the same LSNs. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import type { Store } from "../../src/store/types.ts";
import { tempDir } from "../helpers.ts";

async function collect(store: Store) {
  const out: unknown[] = [];
  for await (const r of store.exportTape()) out.push(r);
  return out;
}

async function* feed(records: unknown[]) {
  for (const r of records) yield JSON.parse(JSON.stringify(r));
}

describe("export and import", () => {
  test("round trip keeps every record, LSN, forget tombstone and idempotency key", async () => {
    using a = tempDir();
    using b = tempDir();
    const src = openSqliteStore(a.path);
    const m = src.memory("local");
    await m.append({
      session: "p/one",
      entries: [
        { role: "user", content: "hello wörld", meta: { x: [1, 2] }, idem_key: "i1" },
        { role: "assistant", content: "hi" },
      ],
    });
    await m.factSet({ key: "k", value: { deep: true } });
    await m.factSet({ key: "k", value: "newer", idem_key: "f1" });
    await m.append({ session: "gone", entries: [{ role: "note", content: "secret", idem_key: "g1" }] });
    await m.forget({ selector: { session: "gone" } });
    await src.memory("other").append({ session: "o", entries: [{ role: "note", content: "theirs" }] });
    const exported = await collect(src);
    src.close();

    const dst = openSqliteStore(b.path);
    const res = await dst.importTape(feed(exported));
    expect(res).toEqual({ records: exported.length, last_lsn: 7 });
    expect(await collect(dst)).toEqual(exported);

    const dm = dst.memory("local");
    expect((await dm.read({ session: "p/one" })).turns.map((t) => [t.lsn, t.content])).toEqual([
      [1, "hello wörld"],
      [2, "hi"],
    ]);
    expect(await dm.factGet({ key: "k" })).toEqual({ key: "k", value: "newer", lsn: 4 });
    // The prompt holds the word; the reply after it is a hit that follows it.
    expect((await dm.search({ query: "wörld" })).hits.map((h) => [h.lsn, h.follows])).toEqual([
      [1, undefined],
      [2, 1],
    ]);
    expect((await dm.search({ query: "secret" })).hits).toEqual([]);
    // I3 survives: retries are recognized, a forgotten key stays reserved.
    expect(
      (await dm.append({ session: "p/one", entries: [{ role: "user", content: "hello wörld", meta: { x: [1, 2] }, idem_key: "i1" }] })).entries[0],
    ).toEqual({ lsn: 1, duplicate: true });
    expect((await dm.append({ session: "gone", entries: [{ role: "note", content: "secret", idem_key: "g1" }] })).entries[0]).toEqual({
      lsn: 5,
      duplicate: true,
    });
    // New writes continue after the imported LSNs (I1).
    expect((await dm.append({ session: "n", entries: [{ role: "note", content: "next" }] })).entries[0]!.lsn).toBe(8);
    expect((await dst.check({ full: true })).ok).toBe(true);
    dst.close();
  });

  test("import refuses a store that is not empty, and bad records, writing nothing", async () => {
    using a = tempDir();
    const s = openSqliteStore(a.path);
    const bad = [{ lsn: 1, tenant: "local", ts: new Date().toISOString(), kind: "turn", session: "s", role: "robot", content: "x", meta: {} }];
    const err = await s.importTape(feed(bad)).catch((e) => e);
    expect({ code: err.code, field: err.field }).toEqual({ code: "invalid_input", field: "line 1.role" });
    const order = [
      { lsn: 2, tenant: "local", ts: new Date().toISOString(), kind: "fact", key: "a", value: 1 },
      { lsn: 2, tenant: "local", ts: new Date().toISOString(), kind: "fact", key: "b", value: 1 },
    ];
    expect((await s.importTape(feed(order)).catch((e) => e)).field).toBe("line 2.lsn");
    expect(await collect(s)).toEqual([]);
    await s.memory("local").factSet({ key: "x", value: 1 });
    // Into a store that holds records, only records that continue it (issue 20): another store's record 1 is a conflict.
    const foreign = [{ lsn: 1, tenant: "local", ts: new Date().toISOString(), kind: "fact", key: "y", value: 2 }];
    expect((await s.importTape(feed(foreign)).catch((e) => e)).code).toBe("conflict");
    s.close();
  });
});

describe("schema versions (section 4a)", () => {
  test("a store written by a newer schema is refused with a clear error", async () => {
    using a = tempDir();
    openSqliteStore(a.path).close();
    const db = new Database(join(a.path, "zerodb.sqlite"));
    db.run("PRAGMA user_version = 999");
    db.close();
    let err: any;
    try {
      openSqliteStore(a.path);
    } catch (e) {
      err = e;
    }
    expect(err.code).toBe("incompatible");
    expect(err.message).toContain("newer zerodb");
  });

  test("a fresh store gets every pragma of section 4a", async () => {
    using a = tempDir();
    const s = openSqliteStore(a.path) as ReturnType<typeof openSqliteStore>;
    const get = (p: string) => Object.values(s.db.query(`PRAGMA ${p}`).get() as object)[0];
    expect([get("journal_mode"), get("synchronous"), get("foreign_keys"), get("secure_delete")]).toEqual(["wal", 2, 1, 1]);
    expect(get("busy_timeout") as number).toBeGreaterThanOrEqual(5000);
    s.close();
  });
});

describe("import obeys the rules of live writes (I6)", () => {
  test("a crafted record with a bad session name, meta, value or tenant is refused, and nothing is written", async () => {
    using a = tempDir();
    const s = openSqliteStore(a.path);
    const ts = new Date().toISOString();
    const cases: [object, string][] = [
      [{ lsn: 1, tenant: "local", ts, kind: "turn", session: "a/../b", role: "note", content: "x", meta: {} }, "line 1.session"],
      [{ lsn: 1, tenant: "local", ts, kind: "turn", session: "s", role: "note", content: "x", meta: { deep: "m".repeat(20_000) } }, "line 1.meta"],
      [{ lsn: 1, tenant: "Bad Tenant", ts, kind: "fact", key: "k", value: 1 }, "line 1.tenant"],
      [{ lsn: 1, tenant: "local", ts, kind: "fact", key: "k/", value: 1 }, "line 1.key"],
      [{ lsn: 1, tenant: "local", ts, kind: "link", url: "javascript:alert(1)", title: null, note: null }, "line 1.url"],
    ];
    for (const [rec, field] of cases) {
      const err = await s.importTape(feed([rec])).catch((e) => e);
      expect({ field: err.field, code: err.code }).toEqual({ field, code: err.field === "line 1.meta" ? "too_large" : "invalid_input" });
    }
    expect(await collect(s)).toEqual([]);
    s.close();
  });
});
