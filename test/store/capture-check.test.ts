/**
 * A capture commit checks a plainly good batch by hand (checkCaptureBatch,
 * src/schema/capture-batch.ts), with the batch schema as the fallback that names
 * the field. The hand check must pass nothing the schema refuses: for every
 * batch here, good or bad, checkCaptureBatch and the schema give the same
 * answer. Then the prepared turns of capture sync's read-ahead worker.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { CONTENT_MAX_BYTES, IDEM_KEY_MAX_BYTES, META_MAX_BYTES } from "../../src/limits.ts";
import { captureBatchSchema, checkCaptureBatch, vouchBatch } from "../../src/schema/capture-batch.ts";
import { parseInput } from "../../src/schema/parse.ts";
import { type CaptureBatch, prepareTurns } from "../../src/store/capture-cursors.ts";
import { openStore } from "../../src/store/index.ts";
import { chunkedBatch, lineBatch } from "../capture/_batches.ts";
import { tempDir } from "../helpers.ts";

/** What a check says: ok, or the error's code, field and message. */
function outcome(check: () => void): unknown {
  try {
    check();
    return "ok";
  } catch (err) {
    const e = err as { code?: string; field?: string; message: string };
    return { code: e.code, field: e.field, message: e.message };
  }
}

/** A batch of three lines with entry 1 changed by `edit` (the batch is a fresh copy each time). */
function withEntry(edit: (e: Record<string, unknown>, wrapper: Record<string, unknown>) => void): CaptureBatch {
  const b = lineBatch(0, 3);
  const wrapper = b.entries[1] as unknown as Record<string, unknown>;
  edit(wrapper.entry as Record<string, unknown>, wrapper);
  return b;
}

class NotPlain {
  x = 1;
}

const deep = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { v };
  return v;
};

const cases: [string, () => CaptureBatch][] = [
  ["a good batch", () => lineBatch(0, 3)],
  ["entries without meta", () => chunkedBatch(0)],
  ["an empty batch", () => lineBatch(2, 2)],
  ["meta with a null prototype", () => withEntry((e) => (e.meta = Object.assign(Object.create(null), { a: 1 })))],
  ["meta present but undefined", () => withEntry((e) => (e.meta = undefined))],
  ["content at its limit", () => withEntry((e) => (e.content = "a".repeat(CONTENT_MAX_BYTES)))],
  ["an idem_key at its limit", () => withEntry((e) => (e.idem_key = "k".repeat(IDEM_KEY_MAX_BYTES)))],
  ["a role not known", () => withEntry((e) => (e.role = "robot"))],
  ["no role", () => withEntry((e) => delete e.role)],
  ["content not a string", () => withEntry((e) => (e.content = 7))],
  ["content with a lone surrogate", () => withEntry((e) => (e.content = "a\ud800b"))],
  ["content over its limit", () => withEntry((e) => (e.content = "é".repeat(CONTENT_MAX_BYTES / 2 + 1)))],
  ["meta an array", () => withEntry((e) => (e.meta = [1]))],
  ["meta null", () => withEntry((e) => (e.meta = null))],
  ["meta a string", () => withEntry((e) => (e.meta = "x"))],
  ["meta a class instance", () => withEntry((e) => (e.meta = new NotPlain()))],
  ["meta holding a class instance", () => withEntry((e) => (e.meta = { a: new NotPlain() }))],
  ["meta with NaN", () => withEntry((e) => (e.meta = { n: Number.NaN }))],
  ["meta with a lone surrogate in a key", () => withEntry((e) => (e.meta = { "\udc00": 1 }))],
  ["meta with a lone surrogate in a value", () => withEntry((e) => (e.meta = { a: ["\udc00"] }))],
  ["meta with a function", () => withEntry((e) => (e.meta = { f: () => 1 }))],
  ["meta too deep", () => withEntry((e) => (e.meta = { d: deep(120) }))],
  ["meta at the depth limit", () => withEntry((e) => (e.meta = { d: deep(99) }))],
  ["meta one past the depth limit", () => withEntry((e) => (e.meta = { d: deep(100) }))],
  ["meta holding undefined", () => withEntry((e) => (e.meta = { u: undefined }))],
  ["meta holding undefined in an array", () => withEntry((e) => (e.meta = { a: [1, undefined] }))],
  ["meta holding a bigint", () => withEntry((e) => (e.meta = { b: 1n }))],
  ["meta holding an Infinity deep down", () => withEntry((e) => (e.meta = { a: [{ b: [Number.POSITIVE_INFINITY] }] }))],
  ["meta holding a Date", () => withEntry((e) => (e.meta = { t: new Date(0) }))],
  ["meta holding null and booleans", () => withEntry((e) => (e.meta = { n: null, t: true, f: false, a: [null, { x: "y" }] }))],
  ["meta over its limit", () => withEntry((e) => (e.meta = { s: "x".repeat(META_MAX_BYTES) }))],
  ["no idem_key", () => withEntry((e) => delete e.idem_key)],
  ["an empty idem_key", () => withEntry((e) => (e.idem_key = ""))],
  ["an idem_key over its limit", () => withEntry((e) => (e.idem_key = "é".repeat(IDEM_KEY_MAX_BYTES)))],
  ["an idem_key with a lone surrogate", () => withEntry((e) => (e.idem_key = "k\ud800"))],
  ["an entry with a field not known", () => withEntry((e) => (e.lsn = 3))],
  ["a wrapper with a field not known", () => withEntry((_e, w) => (w.extra = true))],
  ["a wrapper without its entry", () => withEntry((_e, w) => delete w.entry)],
  ["a wrapper without its cursor", () => withEntry((_e, w) => delete w.before)],
  ["a cursor without its chunk", () => withEntry((_e, w) => (w.before = { offset: 0, position: 1 }))],
  ["a cursor with a field not known", () => withEntry((_e, w) => (w.before = { offset: 0, position: 1, chunk: 0, x: 1 }))],
  ["a negative cursor", () => withEntry((_e, w) => (w.before = { offset: -1, position: 1, chunk: 0 }))],
  ["a fractional cursor", () => withEntry((_e, w) => (w.before = { offset: 0.5, position: 1, chunk: 0 }))],
  ["a cursor past safe integers", () => withEntry((_e, w) => (w.before = { offset: 2 ** 53, position: 1, chunk: 0 }))],
  ["a cursor of strings", () => withEntry((_e, w) => (w.before = { offset: "0", position: 1, chunk: 0 }))],
  ["a wrapper that is null", () => ({ ...lineBatch(0, 2), entries: [lineBatch(0, 1).entries[0]!, null as never] })],
  ["entries not an array", () => ({ ...lineBatch(0, 1), entries: {} as never })],
  ["a bad session and good entries", () => ({ ...lineBatch(0, 2), session: "a//b" })],
  ["a bad session and a bad entry", () => ({ ...withEntry((e) => (e.role = "robot")), session: "a//b" })],
  ["no end cursor", () => ({ ...lineBatch(0, 2), end: undefined as never })],
  ["a source too long", () => ({ ...lineBatch(0, 2), source: "s".repeat(5000) })],
];

describe("checkCaptureBatch", () => {
  for (const [name, make] of cases) {
    test(`gives the schema's answer: ${name}`, () => {
      const bySchema = outcome(() => parseInput(captureBatchSchema(), make()));
      expect(outcome(() => checkCaptureBatch(make()))).toEqual(bySchema);
    });
  }

  test("passes good batches and refuses bad ones (the cases above cover both)", () => {
    const answers = cases.map(([, make]) => outcome(() => parseInput(captureBatchSchema(), make())));
    expect(answers.filter((a) => a === "ok").length).toBe(9);
    expect(answers.filter((a) => a !== "ok").length).toBe(cases.length - 9);
  });
});

describe("vouchBatch (batches the read-ahead worker found plainly good)", () => {
  test("vouches for that very batch only: a copy, or a batch made from it, is checked again", () => {
    const good = lineBatch(0, 3);
    vouchBatch(good);
    expect(outcome(() => checkCaptureBatch(good))).toBe("ok");
    const broken = { ...good, entries: good.entries.map((e, i) => (i === 1 ? { ...e, entry: { ...e.entry, role: "robot" } } : e)) };
    expect(outcome(() => checkCaptureBatch(broken))).toMatchObject({ code: "invalid_input", field: "entries.1.entry.role" });
    expect(outcome(() => checkCaptureBatch({ ...good, session: "" }))).toMatchObject({ code: "invalid_input", field: "session" });
    expect(outcome(() => checkCaptureBatch(null))).not.toBe("ok");
  });
});

describe("prepared turns (capture sync's read-ahead worker)", () => {
  /** A batch whose texts exercise the index text: identifiers, CJK, a JSON line, escapes. */
  function batch(): CaptureBatch {
    const b = lineBatch(0, 4);
    const texts = [
      "uploadRetryCount failed in http2Server",
      "日本語のテキストを検索する",
      '{"command":"npm test","cwd":"/w/app"}',
      'quoted \\"word\\" and\\nnewline',
    ];
    for (const [i, e] of b.entries.entries()) e.entry.content = texts[i]!;
    return b;
  }

  /** Every tape column a commit derives (the checksum, which differs between stores, only when asked), and the word index as (term, row, offset), of one tenant's store. */
  function derived(dir: string, sums = false): { rows: unknown[]; words: unknown[] } {
    const db = new Database(join(dir, "zerodb.sqlite"));
    try {
      db.run("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 'words', 'instance')");
      return {
        rows: db
          .query(
            `SELECT lsn, idem_key, hex(op_hash) AS op, hex(content_hash) AS content, bytes, text, data, sclass${sums ? ", hex(checksum) AS sum" : ""} FROM tape ORDER BY lsn`,
          )
          .all(),
        words: db.query("SELECT term, doc, offset FROM temp.v ORDER BY term, doc, offset").all(),
      };
    } finally {
      db.close();
    }
  }

  test("a batch with its prepared turns stores and indexes exactly what one without them does; forget removes them from the index", async () => {
    using plainDir = tempDir();
    using preparedDir = tempDir();
    const plain = await openStore({ dataDir: plainDir.path });
    const prepared = await openStore({ dataDir: preparedDir.path });
    try {
      const b = batch();
      expect(await plain.capture("local").commit(b)).toMatchObject({ status: "committed", appended: 4 });
      expect(await prepared.capture("local").commit({ ...batch(), prepared: prepareTurns(batch()) })).toMatchObject({ status: "committed", appended: 4 });
      const found = async (s: typeof plain, query: string) => (await s.memory("local").search({ query })).hits.map((h) => h.lsn);
      for (const query of ["retry", "検索", "npm", "newline"]) {
        expect(await found(plain, query)).not.toEqual([]);
        expect(await found(prepared, query)).toEqual(await found(plain, query));
      }
      const want = derived(plainDir.path);
      expect(want.words.length).toBeGreaterThan(20);
      expect(derived(preparedDir.path)).toEqual(want);
      // Forget recomputes each row's index text to take it out of the index: it matches what was indexed.
      await prepared.memory("local").forget({ selector: { session: b.session } });
      expect(derived(preparedDir.path).words).toEqual([]);
    } finally {
      plain.close();
      prepared.close();
    }
  });

  /** The id a store checksums its rows with (src/store/sqlite/identity.ts). */
  function storeId(dir: string): string {
    const db = new Database(join(dir, "zerodb.sqlite"), { readonly: true });
    try {
      return (db.query("SELECT value FROM meta WHERE key = 'store_id'").get() as { value: string }).value;
    } finally {
      db.close();
    }
  }

  test("checksums prepared for the store's id are stored as computed; every row then passes its check", async () => {
    using plainDir = tempDir();
    using preparedDir = tempDir();
    const plain = await openStore({ dataDir: plainDir.path });
    const prepared = await openStore({ dataDir: preparedDir.path });
    try {
      // The two stores' ids differ, so their checksums do: each store's rows are compared with a copy written plainly into it.
      expect(await plain.capture("local").commit(batch())).toMatchObject({ status: "committed", appended: 4 });
      const id = storeId(preparedDir.path);
      expect(prepared.capture("local").storeId).toBe(id);
      const turns = prepareTurns(batch(), id);
      expect(turns.every((t) => t.checksum?.length === 16)).toBe(true);
      expect(await prepared.capture("local").commit({ ...batch(), prepared: turns, preparedFor: id })).toMatchObject({ status: "committed", appended: 4 });
      const again = { ...batch(), source: "again", session: batch().session };
      expect(await prepared.capture("local").commit(again)).toMatchObject({ status: "committed", appended: 0, skipped: 4 });
      expect(derived(preparedDir.path)).toEqual(derived(plainDir.path));
      const sums = (derived(preparedDir.path, true).rows as { sum: string }[]).map((r) => r.sum);
      expect(sums).toEqual(turns.map((t) => Buffer.from(t.checksum!).toString("hex").toUpperCase()));
      // A read checks each row's checksum (a wrong one is `corrupt`), and so does the store check.
      const read = await prepared.memory("local").read({ session: batch().session });
      expect(read.turns.map((t) => t.content)).toEqual(batch().entries.map((e) => e.entry.content));
      expect(await prepared.check({ full: true })).toMatchObject({ ok: true });
    } finally {
      plain.close();
      prepared.close();
    }
  });

  test("checksums prepared for another store's id are not used: the rows are checksummed for this one", async () => {
    using dir = tempDir();
    using otherDir = tempDir();
    const store = await openStore({ dataDir: dir.path });
    const other = await openStore({ dataDir: otherDir.path });
    try {
      const otherId = storeId(otherDir.path);
      expect(otherId).not.toBe(storeId(dir.path));
      const turns = prepareTurns(batch(), otherId).map((t) => ({ ...t, data: '{"role":"user","meta":{"forged":true}}' }));
      expect(await store.capture("local").commit({ ...batch(), prepared: turns, preparedFor: otherId })).toMatchObject({ status: "committed", appended: 4 });
      const read = await store.memory("local").read({ session: batch().session });
      expect(read.turns.map((t) => t.content)).toEqual(batch().entries.map((e) => e.entry.content));
      expect(read.turns.some((t) => "forged" in t.meta)).toBe(false);
      expect(await store.check({ full: true })).toMatchObject({ ok: true });
    } finally {
      store.close();
      other.close();
    }
  });

  test("prepared turns of another batch's length are not used", async () => {
    using dir = tempDir();
    const store = await openStore({ dataDir: dir.path });
    try {
      const wrong = prepareTurns(lineBatch(0, 3)).map((p) => ({ ...p, index: "wrong" }));
      expect(await store.capture("local").commit({ ...batch(), prepared: wrong })).toMatchObject({ status: "committed", appended: 4 });
      expect(derived(dir.path).words.some((w) => (w as { term: string }).term === "wrong")).toBe(false);
    } finally {
      store.close();
    }
  });
});

describe("held keys, looked up 256 at a time", () => {
  test("a batch of 600 whose keys 0-2, 255-256 and 300-302 are held stores the rest, and skips those", async () => {
    using dir = tempDir();
    const store = await openStore({ dataDir: dir.path });
    try {
      const cursors = store.capture("local");
      // Held live: stored by other sources (what racing runs or a lost cursor leave), across the parts of the lookup.
      for (const [first, n, source] of [
        [0, 3, "a"],
        [255, 2, "b"],
        [300, 3, "c"],
      ] as const) {
        const held = lineBatch(0, n, { source });
        for (const [i, e] of held.entries.entries()) e.entry.idem_key = `sid:${first + i}:0`;
        expect(await cursors.commit(held)).toMatchObject({ status: "committed", appended: n });
      }
      expect(await cursors.commit(lineBatch(0, 600, { source: "d" }))).toMatchObject({ status: "committed", appended: 592, skipped: 8 });
      const db = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
      try {
        const keys = (db.query("SELECT idem_key FROM tape ORDER BY idem_key").all() as { idem_key: string }[]).map((r) => r.idem_key);
        expect(keys.length).toBe(600);
        expect(new Set(keys).size).toBe(600);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });
});
