/**
 * Migration 4 (DESIGN.md 11): a store written by the release before it (the
 * fixture was made by commit 39228f8's binary, see test/fixtures/old-store/make.ts)
 * gets the new index, with progress, and searches, filters noise and forgets
 * like a new one.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS } from "../../src/store/sqlite/migrate.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { ZERODB, filesContaining, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "old-store", "data");

function oldStore() {
  const dir = tempDir();
  cpSync(FIXTURE, dir.path, { recursive: true });
  return dir;
}

describe("migration 4 on a store of the previous release", () => {
  test("the fixture really is schema 3", () => {
    const db = new Database(join(FIXTURE, "zerodb.sqlite"), { readonly: true });
    expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(3);
    db.close();
  });

  test("the index is rebuilt with progress, and search finds what the old store holds", async () => {
    using dir = oldStore();
    const progress: [string, number, number][] = [];
    const store = openSqliteStore(dir.path, { onProgress: (what, done, total) => progress.push([what, done, total]) });
    expect(progress.at(-1)).toEqual(["migration 7: search index", 10, 10]);
    const db = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
    expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(MIGRATIONS.length);
    db.close();
    const m = store.memory("local");
    const first = async (query: string, extra = {}) => (await m.search({ query, limit: 3, ...extra })).hits[0]?.lsn;
    expect(await first("why did we turn off the retry in the upload client?")).toBe(7);
    expect(await first("再試行")).toBe(7);
    expect(await first("staging deploy timeout")).toBe(8);
    expect(await first("roll back runbook")).toBe(11);
    // The tool input is indexed decoded: "Important" after an escaped newline.
    expect(await first("important")).toBe(5);
    expect(await first("nimportant")).toBeUndefined();
    expect(await first("retry count")).toBeDefined();
    expect((await store.check({ full: true })).ok).toBe(true);
    store.close();
  });

  test("old captured bookkeeping and zerodb's own search call and result are noise", async () => {
    using dir = oldStore();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    const lsns = async (query: string, extra = {}) => (await m.search({ query, ...extra })).hits.map((h) => h.lsn).sort((a, b) => a - b);
    // lsn 1 the queue operation, 3 the mcp__zerodb__search call, 4 its result; 2 the prompt, 5-6 a Bash call
    // and its result in packages/upload, 7 the reply.
    expect(await lsns("uploads twice")).toEqual([2, 5, 6, 7]);
    expect(await lsns("uploads twice", { include_noise: true })).toEqual([1, 2, 3, 4, 5, 6, 7]);
    store.close();
  });

  test("forget purges a migrated row from every index: words, identifier parts, CJK bigrams", async () => {
    using dir = oldStore();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    expect((await m.search({ query: "zqxforgetword" })).hits.map((h) => h.lsn)).toEqual([9]);
    expect((await m.search({ query: "合言葉" })).hits.map((h) => h.lsn)).toEqual([9]);
    expect((await m.forget({ selector: { turn: 9 } })).hidden).toBe(1);
    for (const q of ["zqxforgetword", "camelCaseSecretName", "secret name", "合言葉", "秘密"])
      expect((await m.search({ query: q, include_noise: true })).hits, q).toEqual([]);
    store.close();
    // The index's own vocabulary holds none of the row's terms (secure-delete), and no file holds its words.
    const db = new Database(join(dir.path, "zerodb.sqlite"));
    db.run("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 'words', 'row')");
    const terms = (db.query("SELECT term FROM temp.v").all() as { term: string }[]).map((r) => r.term);
    for (const t of ["zqxforgetword", "camelcasesecretnam", "secret", "秘密", "合言", "言葉", "葉"]) expect(terms, t).not.toContain(t);
    expect(terms).toContain("retri");
    db.close();
    for (const needle of ["zqxforgetword", "camelCaseSecretName", "合言葉"]) expect(filesContaining(dir.path, needle), needle).toEqual([]);
  });

  test("the built binary migrates an old store from the CLI and answers a question in unquoted words", async () => {
    using dir = oldStore();
    using home = tempDir();
    const p = Bun.spawn([ZERODB, "search", "--data-dir", dir.path, "--json", "why", "did", "we", "turn", "off", "the", "retry?"], {
      env: { ...process.env, ZERODB_HOME: home.path },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    const r = JSON.parse(out);
    expect(r.hits[0].lsn).toBe(7);
    expect(r.hits[0].matched).toEqual(["turn", "off", "retry"]);
  });
});
