/**
 * Migration 8 (issue 28, DESIGN.md 11): a store written by the release
 * before it (test/fixtures/progress-store, made by commit 7e00222's binary:
 * see its make.ts) kept Claude Code's agent_progress lines as `[progress]
 * {...}` noise and compaction as prompts, replies and system text. After
 * the migration its rows are what today's capture stores for the same lines:
 * a subagent's finding is found once, compaction is a summary, a replay of
 * every line is a duplicate, and forget still purges a rewritten row.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { SourceFile, readBatch } from "../../src/capture/read-batch.ts";
import { transcriptSources } from "../../src/capture/sync.ts";
import { SearchClass } from "../../src/search/search-class.ts";
import { CURSOR_START } from "../../src/store/capture-cursors.ts";
import { MIGRATIONS } from "../../src/store/sqlite/migrate.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { filesContaining, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "progress-store");
const SID = "22222222-3333-4444-8555-666666666666";
const SESSION = "app-70467eff/7303dad5f020a7d9";

function oldStore() {
  const dir = tempDir();
  cpSync(join(FIXTURE, "data"), dir.path, { recursive: true });
  return dir;
}

/** Each row's class, text and meta, by LSN. */
function rows(dataDir: string): Map<number, { sclass: number; text: string | null; meta: Record<string, unknown> }> {
  const db = new Database(join(dataDir, "zerodb.sqlite"), { readonly: true });
  const all = db.query("SELECT lsn, sclass, text, data FROM tape WHERE kind = 'turn' ORDER BY lsn").all() as {
    lsn: number;
    sclass: number;
    text: string | null;
    data: string | null;
  }[];
  db.close();
  return new Map(all.map((r) => [r.lsn, { sclass: r.sclass, text: r.text, meta: r.data ? JSON.parse(r.data).meta : {} }]));
}

describe("migration 8 on a store of the previous release", () => {
  test("with progress, agent_progress rows become the messages they carry, or notes when the subagent's own transcript is stored", async () => {
    using dir = oldStore();
    // The fixture really is schema 6, its 10 agent_progress lines noise.
    const old = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
    expect((old.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(6);
    expect(old.query("SELECT count(*) AS n FROM tape WHERE text LIKE '[progress] {%agent_progress%' AND sclass = 9").get()).toEqual({ n: 10 });
    old.close();
    const progress: [string, number, number][] = [];
    openSqliteStore(dir.path, { onProgress: (what, done, total) => progress.push([what, done, total]) }).close();
    expect(progress.at(-1)).toEqual(["migration 8: subagent messages and summaries", 14, 14]);
    const db = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
    expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(MIGRATIONS.length);
    db.close();
    const r = rows(dir.path);
    // lsn 5-8: subagent a1b2c3d's messages, which its own transcript holds (lsn 25-29): notes naming it.
    for (const lsn of [5, 6, 7, 8]) {
      expect(r.get(lsn)!.text).toStartWith("[agent_progress] a1b2c3d: ");
      expect(r.get(lsn)!.meta).toMatchObject({ subtype: "agent_progress", agent_id: "a1b2c3d", stored_in: "agent-a1b2c3d.jsonl", noise: "bookkeeping" });
    }
    // lsn 13-18: subagent e5f6a7b's, which has no transcript of its own: the messages, classified as any.
    expect([13, 14, 15, 16, 17, 18].map((lsn) => [r.get(lsn)!.meta.kind, r.get(lsn)!.meta.noise, r.get(lsn)!.sclass])).toEqual([
      ["prompt", undefined, SearchClass.prompt],
      ["tool_call", "zerodb", SearchClass.noise],
      ["tool_result", "zerodb", SearchClass.noise],
      ["tool_call", undefined, SearchClass.tool_call],
      ["tool_result", undefined, SearchClass.tool_result],
      ["reply", undefined, SearchClass.reply],
    ]);
    expect(r.get(17)!.text).toBe(
      "[tool_result]\nconst curve = zqxbackoffcurve(zqxjitterseed);\n// mirror key [redacted:aws_access_key]\nexport default curve;",
    );
    expect(r.get(17)!.meta).toMatchObject({
      type: "progress",
      uuid: "00000000-0000-4000-8000-000000000019",
      progress_uuid: "00000000-0000-4000-8000-00000000001a",
      agent_id: "e5f6a7b",
      isSidechain: true,
      redacted: 1,
      position: 15,
    });
    // Other progress lines (a hook run, bash output) stay as they were.
    expect([r.get(4)!.text!.slice(0, 12), r.get(20)!.text!.slice(0, 12), r.get(4)!.sclass, r.get(20)!.sclass]).toEqual([
      "[progress] {",
      "[progress] {",
      SearchClass.noise,
      SearchClass.noise,
    ]);
  });

  test("a subagent's finding is found exactly once; one without its own transcript is found by default; compaction is a summary", async () => {
    using dir = oldStore();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    const lsns = async (query: string, include_noise = false) => (await m.search({ query, include_noise })).hits.map((h) => h.lsn).sort((a, b) => a - b);
    expect(await lsns("zqxretrybudget", true)).toEqual([27]);
    expect(await lsns("zqxbackoffcurve")).toEqual([17, 18]);
    expect(await lsns("zqxcompactword")).toEqual([22, 33]);
    store.close();
    const r = rows(dir.path);
    // The compact summary, the compaction prompt and the compaction agent's reply; its copy of a hook's reminder stays bookkeeping.
    expect([22, 32, 33, 31].map((lsn) => [r.get(lsn)!.meta.kind, r.get(lsn)!.sclass])).toEqual([
      ["summary", SearchClass.summary],
      ["summary", SearchClass.summary],
      ["summary", SearchClass.summary],
      ["system", SearchClass.noise],
    ]);
  });

  test("every line of the transcripts, captured again by today's code, is a duplicate of what the migration left (I3)", async () => {
    using dir = oldStore();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    const { sources } = transcriptSources(join(FIXTURE, "transcripts", `${SID}.jsonl`));
    expect(sources.map((s) => s.key)).toEqual([SID, `${SID}/agent-a1b2c3d.jsonl`, `${SID}/agent-acompact-0f1e2d.jsonl`]);
    const counts: number[] = [];
    for (const source of sources) {
      using file = new SourceFile(source);
      const limits = { entries: 1000, bytes: 1 << 30, firstFree: true };
      const read = readBatch(source, file, { start: CURSOR_START, session: SESSION, redact: true, limits, deadline: undefined }, new Set())!;
      const r = await m.append({ session: SESSION, entries: read.batch.entries.map((e) => e.entry) });
      expect(r.entries.filter((e) => !e.duplicate)).toEqual([]);
      counts.push(r.entries.length);
    }
    expect(counts).toEqual([22, 5, 3]);
    expect((await store.check({ full: true })).ok).toBe(true);
    store.close();
  });

  test("forget purges a rewritten row, and the note that replaced a copy holds none of it (I9)", async () => {
    using dir = oldStore();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    // The finding's only copy is the subagent's own row: forgetting it leaves the word in no file.
    expect((await m.forget({ selector: { turn: 27 } })).hidden).toBe(1);
    expect(filesContaining(dir.path, "zqxretrybudget")).toEqual([]);
    // A row rendered from its progress line is forgotten as any.
    expect((await m.forget({ selector: { turn: 17 } })).hidden).toBe(1);
    expect((await m.search({ query: "zqxjitterseed", include_noise: true })).hits).toEqual([]);
    store.close();
    const db = new Database(join(dir.path, "zerodb.sqlite"));
    db.run("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 'words', 'row')");
    const terms = (db.query("SELECT term FROM temp.v").all() as { term: string }[]).map((t) => t.term);
    db.close();
    for (const t of ["zqxretrybudget", "zqxjitterse"]) expect(terms.filter((x) => x.startsWith(t))).toEqual([]);
    expect(filesContaining(dir.path, "zqxjitterseed")).toEqual([]);
  });

  test("a second open changes nothing, and sessions count the new bytes", async () => {
    using dir = oldStore();
    const old = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
    const oldBytes = (old.query("SELECT bytes FROM sessions WHERE name = ?").get(SESSION) as { bytes: number }).bytes;
    old.close();
    openSqliteStore(dir.path).close();
    const before = rows(dir.path);
    const progress: string[] = [];
    const store = openSqliteStore(dir.path, { onProgress: (what) => progress.push(what) });
    expect(progress).toEqual([]);
    expect(rows(dir.path)).toEqual(before);
    const listed = (await store.memory("local").sessions({})).sessions.find((s) => s.name === SESSION)!;
    const db = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
    const sum = db.query("SELECT sum(bytes) AS b, count(*) AS n FROM tape WHERE kind = 'turn' AND subject = ?").get(SESSION) as { b: number; n: number };
    db.close();
    expect({ turns: listed.turns, bytes: listed.bytes }).toEqual({ turns: sum.n, bytes: sum.b });
    // The notes that replaced copies are shorter than the JSON they replaced.
    expect(listed.bytes).toBeLessThan(oldBytes);
    store.close();
  });
});
