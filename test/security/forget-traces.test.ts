/**
 * Issue 14 item 4: forget leaves nothing that reveals what was forgotten. A
 * hostile review recovered a forgotten PIN from an export by hashing the
 * 10,000 candidates against the op_hash a forgotten row kept, and read
 * forgotten session names and fact keys from forget records' selectors. Each
 * test first shows its attack or scan succeeding on what is not forgotten
 * (so it could fail), then failing on what is. Here, on the store: its
 * export and files, replays of forgotten idem keys, and export and import.
 * An older store's migration: forget-traces-migration.test.ts; the built
 * binary: forget-traces-binary.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Memory } from "../../src/store/types.ts";
import { filesContaining, tempDir } from "../helpers.ts";
import { FIXTURE, crackPin, dataFiles, exportOf, feed, opened } from "./_forget-traces.ts";

const jsonl = (records: unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join("");

/** The LSNs and hiding forgets of a store's forgotten records. */
const hiddenSet = (records: Record<string, unknown>[]) => records.filter((r) => "forgotten_by" in r).map((r) => [r.lsn, r.forgotten_by]);

describe("forget leaves no recoverable trace (issue 14 item 4)", () => {
  test("PIN attack: a forgotten 4-digit PIN set with an idem_key is not recovered by hashing 10,000 candidates against the export or the store's files", async () => {
    using dir = tempDir();
    using store = opened(dir.path);
    const m = store.memory("local");
    await m.append({ session: "notes", entries: [{ role: "note", content: "unrelated", idem_key: "n1" }] });
    const set = await m.factSet({ key: "pin", value: "4821", idem_key: "set-pin-7f3a" });
    await m.factSet({ key: "owner", value: "alice", idem_key: "owner-1" });

    // The attack works on what is not forgotten: the op_hash is in the export and the file.
    expect(crackPin("pin", [jsonl(await exportOf(store))])).toEqual(["4821"]);
    expect(crackPin("pin", dataFiles(dir.path))).toEqual(["4821"]);

    expect((await m.forget({ selector: { fact: "pin" } })).hidden).toBe(1);
    const exported = await exportOf(store);
    expect(crackPin("pin", [jsonl(exported)])).toEqual([]);
    // The forget's checkpoint has run: the database file and the WAL, while the store is open.
    expect(crackPin("pin", dataFiles(dir.path))).toEqual([]);
    expect(jsonl(exported)).not.toContain('"4821"');
    expect(filesContaining(dir.path, '"4821"')).toEqual([]);
    // What is left of the row: its LSN, kind, forget, and the digest that keeps its key reserved (I3).
    expect(exported.find((r) => r.lsn === set.lsn)).toEqual({
      lsn: set.lsn,
      tenant: "local",
      ts: expect.any(String),
      kind: "fact",
      forgotten_by: 4,
      idem_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    store.close();
    expect(crackPin("pin", dataFiles(dir.path))).toEqual([]);
  });

  test("the forgotten session name, fact key and their idem keys appear nowhere in the export, the database file or the WAL", async () => {
    using dir = tempDir();
    using store = opened(dir.path);
    const m = store.memory("local");
    const session = "acme-layoffs-2027/notes";
    const factKey = "hr/termination-list-q3";
    // Keys that carry the name, as capture's carry the transcript's session id.
    const secrets = [session, "acme-layoffs", factKey, "termination-list", "acme-layoffs-2027/notes#0", "termination-list-q3@v1"];
    await m.append({ session: "keep", entries: [{ role: "note", content: "kept before" }] });
    await m.append({
      session,
      entries: [
        { role: "note", content: "draft one", idem_key: "acme-layoffs-2027/notes#0" },
        { role: "note", content: "draft two" },
      ],
    });
    await m.factSet({ key: factKey, value: ["x", "y"], idem_key: "termination-list-q3@v1" });
    await m.append({ session: "keep", entries: [{ role: "note", content: "kept between" }] });

    // The scan finds them while they are live.
    for (const s of secrets) {
      expect(jsonl(await exportOf(store)), s).toContain(s);
      expect(filesContaining(dir.path, s).length, s).toBeGreaterThan(0);
    }

    const f1 = await m.forget({ selector: { session } });
    const f2 = await m.forget({ selector: { fact_prefix: "hr/termination-" } });
    expect([f1.hidden, f2.hidden]).toEqual([2, 1]);
    const exported = await exportOf(store);
    for (const s of secrets) {
      expect(jsonl(exported), s).not.toContain(s);
      expect(filesContaining(dir.path, s), s).toEqual([]);
    }
    // A forget record says that something was forgotten, how much and which LSNs: what a replay needs.
    expect(exported.filter((r) => r.kind === "forget")).toEqual([
      { lsn: f1.lsn, tenant: "local", ts: expect.any(String), kind: "forget", hidden: 2, lsns: [[2, 3]] },
      { lsn: f2.lsn, tenant: "local", ts: expect.any(String), kind: "forget", hidden: 1, lsns: [[4, 4]] },
    ]);
    // A forgotten record keeps its LSN, kind and forget; its time is the forget's, not its own.
    const forgotten = exported.filter((r) => "forgotten_by" in r);
    expect(forgotten.map((r) => [r.lsn, r.kind, r.forgotten_by, Object.keys(r).sort()])).toEqual([
      [2, "turn", f1.lsn, ["forgotten_by", "idem_digest", "kind", "lsn", "tenant", "ts"]],
      [3, "turn", f1.lsn, ["forgotten_by", "kind", "lsn", "tenant", "ts"]],
      [4, "fact", f2.lsn, ["forgotten_by", "idem_digest", "kind", "lsn", "tenant", "ts"]],
    ]);
    const tsOf = (lsn: number | null) => exported.find((r) => r.lsn === lsn)!.ts;
    expect(forgotten.map((r) => r.ts)).toEqual([tsOf(f1.lsn), tsOf(f1.lsn), tsOf(f2.lsn)]);
    store.close();
    for (const s of secrets) expect(filesContaining(dir.path, s), s).toEqual([]);
  });

  test("I3: after forget, a replay with the forgotten idem_key writes nothing and returns the original LSN as a duplicate", async () => {
    using dir = tempDir();
    using store = opened(dir.path);
    const m = store.memory("local");
    const turn = await m.append({ session: "s", entries: [{ role: "user", content: "forget me", idem_key: "t-key" }] });
    const fact = await m.factSet({ key: "pin", value: "4821", idem_key: "f-key" });
    const link = await m.linkAdd({ url: "https://example.com/private", note: "gone", idem_key: "l-key" });
    // Before the forget, another content under the key is a conflict.
    expect((await m.factSet({ key: "pin", value: "0000", idem_key: "f-key" }).catch((e) => e)).code).toBe("conflict");
    await m.forget({ selector: { session: "s" } });
    await m.forget({ selector: { fact: "pin" } });
    await m.forget({ selector: { link: link.lsn } });
    const last = (await store.memory("local").stats()).last_lsn;

    const replays = async (mem: Memory) => [
      (await mem.append({ session: "s", entries: [{ role: "user", content: "forget me", idem_key: "t-key" }] })).entries[0],
      (await mem.append({ session: "s", entries: [{ role: "user", content: "other", idem_key: "t-key" }] })).entries[0],
      await mem.factSet({ key: "pin", value: "4821", idem_key: "f-key" }),
      // Another value is no conflict: a conflict would tell a wrong guess from the right one.
      await mem.factSet({ key: "pin", value: "0000", idem_key: "f-key" }),
      await mem.linkAdd({ url: "https://example.com/private", note: "gone", idem_key: "l-key" }),
    ];
    const expected = [turn.entries[0]!.lsn, turn.entries[0]!.lsn, fact.lsn, fact.lsn, link.lsn].map((lsn) => ({ lsn, duplicate: true }));
    expect(await replays(m)).toEqual(expected);
    expect((await m.stats()).last_lsn).toBe(last);
    expect((await m.read({ session: "s" })).turns).toEqual([]);
    expect((await m.factGet({ key: "pin" }).catch((e) => e)).code).toBe("not_found");
    expect((await m.search({ query: "private" })).hits).toEqual([]);
    // Keys are per tenant: another tenant's same key is a new write.
    expect((await store.memory("other").factSet({ key: "pin", value: "1", idem_key: "f-key" })).duplicate).toBe(false);

    // And in a store restored from the export.
    using b = tempDir();
    using restored = opened(b.path);
    await restored.importTape(feed(await exportOf(store)));
    const last2 = (await restored.memory("local").stats()).last_lsn;
    expect(await replays(restored.memory("local"))).toEqual(expected);
    expect((await restored.memory("local").stats()).last_lsn).toBe(last2);
  });

  test("export, then import into an empty store, gives an equal store: same LSNs, same visible records, same hidden set", async () => {
    using a = tempDir();
    using b = tempDir();
    using src = opened(a.path);
    const m = src.memory("local");
    for (let i = 0; i < 6; i++) await m.append({ session: i % 2 ? "p/odd" : "p/even", entries: [{ role: "note", content: `n${i}`, idem_key: `k${i}` }] });
    await m.factSet({ key: "pin", value: "4821", idem_key: "pin-1" });
    await m.factSet({ key: "keep", value: 1 });
    await m.forget({ selector: { session: "p/odd" } });
    await m.forget({ selector: { fact: "pin" } });
    await src.memory("other").append({ session: "o", entries: [{ role: "note", content: "theirs" }] });
    await m.forget({ selector: { turn: 1 } });
    const exported = await exportOf(src);
    expect(exported.filter((r) => r.kind === "forget").map((r) => [r.hidden, r.lsns])).toEqual([
      [
        3,
        [
          [2, 2],
          [4, 4],
          [6, 6],
        ],
      ],
      [1, [[7, 7]]],
      [1, [[1, 1]]],
    ]);

    using dst = opened(b.path);
    expect(await dst.importTape(feed(exported))).toEqual({ records: exported.length, last_lsn: 12 });
    expect(await exportOf(dst)).toEqual(exported);
    expect(hiddenSet(await exportOf(dst))).toEqual([
      [1, 12],
      [2, 9],
      [4, 9],
      [6, 9],
      [7, 10],
    ]);
    const dm = dst.memory("local");
    expect((await dm.read({ session: "p/even" })).turns.map((t) => [t.lsn, t.content])).toEqual([
      [3, "n2"],
      [5, "n4"],
    ]);
    expect((await dm.sessions({})).sessions.map((s) => s.name)).toEqual(["p/even"]);
    expect((await dm.factList({})).facts).toEqual([{ key: "keep", value: 1, lsn: 8 }]);
    expect((await dst.check({ full: true })).ok).toBe(true);
  });

  test("import refuses forget records whose LSNs do not match the records they hid, and records hidden by no forget", async () => {
    using a = tempDir();
    using src = opened(a.path);
    const m = src.memory("local");
    await m.append({
      session: "s",
      entries: [
        { role: "note", content: "a" },
        { role: "note", content: "b" },
      ],
    });
    await m.forget({ selector: { turn: 1 } });
    const good = await exportOf(src);
    const tampered = good.map((r) => (r.kind === "forget" ? { ...r, lsns: [[1, 2]], hidden: 2 } : r));
    const orphan = good.filter((r) => r.kind !== "forget");
    for (const [records, field] of [
      [tampered, "line 3.lsns"],
      [orphan, "forgotten_by"],
    ] as const) {
      using b = tempDir();
      using dst = opened(b.path);
      const err = await dst.importTape(feed(records)).catch((e) => e);
      expect({ code: err.code, field: err.field }).toEqual({ code: "invalid_input", field });
      expect(await exportOf(dst)).toEqual([]);
    }
  });

  test("an export written by the release before (selectors, forgotten idem_key and op_hash) imports, and keeps none of it", async () => {
    const old = readFileSync(join(FIXTURE, "export.jsonl"), "utf8");
    // What the old release wrote: the attack and the scan succeed on it.
    expect(crackPin("pin", [old])).toEqual(["4821"]);
    for (const s of ["acme-layoffs-2027/notes", "hr/termination-", "set-pin-b7e2c1", "note-k3v9q2"]) expect(old).toContain(s);

    using dir = tempDir();
    using store = opened(dir.path);
    const lines = old
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(await store.importTape(feed(lines))).toEqual({ records: 10, last_lsn: 10 });
    const again = await exportOf(store);
    expect(hiddenSet(again)).toEqual([
      [2, 7],
      [3, 8],
      [4, 8],
      [5, 9],
    ]);
    expect(again.filter((r) => r.kind === "forget").map((r) => [r.lsn, r.hidden, r.lsns])).toEqual([
      [7, 1, [[2, 2]]],
      [8, 2, [[3, 4]]],
      [9, 1, [[5, 5]]],
    ]);
    expect(crackPin("pin", [jsonl(again)])).toEqual([]);
    expect(crackPin("pin", dataFiles(dir.path))).toEqual([]);
    for (const s of ["acme-layoffs", "hr/termination-", "set-pin-b7e2c1", "note-k3v9q2", "selector", "op_hash"]) {
      expect(jsonl(again), s).not.toContain(s);
    }
    for (const s of ["acme-layoffs", "hr/termination-", "set-pin-b7e2c1", "note-k3v9q2"]) expect(filesContaining(dir.path, s), s).toEqual([]);
    // The old keys stay reserved (I3).
    const m = store.memory("local");
    expect(await m.factSet({ key: "pin", value: "4821", idem_key: "set-pin-b7e2c1" })).toEqual({ lsn: 2, duplicate: true });
    expect((await m.append({ session: "x", entries: [{ role: "note", content: "y", idem_key: "note-k3v9q2" }] })).entries).toEqual([
      { lsn: 3, duplicate: true },
    ]);
    expect((await m.read({ session: "keep" })).turns.map((t) => t.lsn)).toEqual([1, 10]);
    expect((await store.check({ full: true })).ok).toBe(true);
  });
});
