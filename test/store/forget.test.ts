/** I9 (purge) on the SQLite file: forgotten content is gone from every file of the data dir. Selectors and the cutoff (I8) run on every engine: test/store/contract/_forget.ts. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { canonicalJson } from "../../src/util/json.ts";
import { sha256 } from "../../src/util/hash.ts";
import { filesContaining, tempDir } from "../helpers.ts";

/** Every file under dir whose bytes contain these bytes (a hash is stored raw). */
function filesHolding(dir: string, bytes: Uint8Array): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && readFileSync(join(e.parentPath, e.name)).includes(Buffer.from(bytes)))
    .map((e) => join(e.parentPath, e.name));
}

describe("forget", () => {
  test("a row whose index entries were merged into an older segment long ago leaves no byte of its words, and writes stay without secure deletes", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    // Letters only, ending as no English word does: the index holds it as written (Porter changes no "-qq" ending).
    const word = `zqx${crypto
      .randomUUID()
      .replaceAll("-", "")
      .replace(/[0-9]/g, (d) => "ghijklmnop"[Number(d)]!)}qq`;
    const notes = (n: number, from: number) => Array.from({ length: n }, (_, i) => ({ role: "note" as const, content: `note ${from + i} about the deploy` }));
    await m.append({ session: "old", entries: [...notes(120, 0), { role: "note", content: `early ${word} note` }, ...notes(120, 120)] });
    // Each append is a transaction and a segment of the index; FTS5 merges them into larger ones as they add up.
    for (let i = 1; i < 40; i++) await m.append({ session: "later", entries: notes(250, i * 250) });
    // The index stores a word after the letters it shares with the word before it on its page: what follows "zqx" is unique.
    const tail = word.slice(3);
    expect(filesContaining(dir.path, tail).length).toBeGreaterThan(0);
    expect((await m.forget({ selector: { session: "old" } })).hidden).toBe(241);
    expect(filesContaining(dir.path, tail)).toEqual([]);
    // Forget turned FTS5's secure-delete on for its own deletes only (migration 006): inserts do not pay for it.
    const db = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
    expect(db.query("SELECT v FROM words_config WHERE k = 'secure-delete'").get()).toEqual({ v: 0 });
    db.close();
    expect((await m.search({ query: "deploy" })).hits.length).toBeGreaterThan(0);
    store.close();
    expect(filesContaining(dir.path, tail)).toEqual([]);
  });

  test("a forgotten session's unique word, its name, its idem key and the hash of its content are found neither by search nor in any byte of the data dir", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    const word = `zqx${crypto.randomUUID().replaceAll("-", "")}`;
    const session = `secret-${crypto.randomUUID()}/one`;
    const idemKey = `key-${crypto.randomUUID()}`;
    // The operation hash an idempotent append keeps (turns.ts): of short content it is the content (issue 14 item 4).
    const opHash = sha256(canonicalJson(["turn", session, "user", `the word is ${word}`, {}]));
    // Plenty of other rows around it, some long enough for overflow pages.
    for (let i = 0; i < 50; i++) await m.append({ session: "keep", entries: [{ role: "note", content: `filler ${i} ${"x".repeat(i * 200)}` }] });
    await m.append({
      session,
      entries: [
        { role: "user", content: `the word is ${word}`, idem_key: idemKey },
        { role: "assistant", content: `${word} `.repeat(3000) },
        { role: "note", content: `again ${word}`, meta: { note: word } },
      ],
    });
    await m.factSet({ key: "other", value: "kept" });
    expect((await m.search({ query: word })).hits.length).toBe(3);
    // The index stores a word after the letters it shares with the term before it ("zqx", an identifier part): the rest is unique.
    for (const needle of [word, word.slice(3), session, idemKey]) expect(filesContaining(dir.path, needle).length, needle).toBeGreaterThan(0);
    expect(filesHolding(dir.path, opHash).length).toBeGreaterThan(0);

    const r = await m.forget({ selector: { session } });
    expect(r.hidden).toBe(3);
    expect((await m.search({ query: word })).hits).toEqual([]);
    expect((await m.read({ session })).turns).toEqual([]);
    expect((await m.sessions({})).sessions.map((s) => s.name)).toEqual(["keep"]);
    // While the store is still open: database, WAL and shm.
    for (const needle of [word, word.slice(3), session, idemKey]) expect(filesContaining(dir.path, needle), needle).toEqual([]);
    expect(filesHolding(dir.path, opHash)).toEqual([]);
    store.close();
    for (const needle of [word, word.slice(3), session, idemKey]) expect(filesContaining(dir.path, needle), needle).toEqual([]);
    expect(filesHolding(dir.path, opHash)).toEqual([]);
    // Everything else is intact.
    const again = openSqliteStore(dir.path);
    expect((await again.memory("local").read({ session: "keep", limit: 1000 })).turns.length).toBe(50);
    expect((await again.memory("local").factGet({ key: "other" })).value).toBe("kept");
    expect((await again.check({ full: true })).ok).toBe(true);
    again.close();
  });
});

describe("forget while another connection reads (I9)", () => {
  test("a reader holding the WAL delays the purge of the WAL, never writers; it finishes once the reader lets go", async () => {
    const { Database } = await import("bun:sqlite");
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    const word = `held${crypto.randomUUID().replaceAll("-", "")}`;
    await m.append({ session: "s", entries: [{ role: "note", content: `the ${word} word` }] });
    // Another connection (as another process would) opens a read transaction and keeps it.
    const reader = new Database(join(dir.path, "zerodb.sqlite"));
    reader.run("BEGIN");
    reader.query("SELECT count(*) FROM tape").get();
    const t0 = Date.now();
    expect((await m.forget({ selector: { session: "s" } })).hidden).toBe(1);
    // The forget returned within its checkpoint budget, and writes still go through.
    expect(Date.now() - t0).toBeLessThan(9000);
    await m.append({ session: "other", entries: [{ role: "note", content: "still writable" }] });
    expect((await m.search({ query: word })).hits).toEqual([]);
    const pending = store.db.query("SELECT value FROM meta WHERE key = 'purge_pending'").get();
    expect(pending).toEqual({ value: "1" });
    reader.run("COMMIT");
    reader.close();
    store.close();
    expect(filesContaining(dir.path, word)).toEqual([]);
    const again = openSqliteStore(dir.path);
    expect(again.db.query("SELECT value FROM meta WHERE key = 'purge_pending'").get()).toBeNull();
    again.close();
  });
});
