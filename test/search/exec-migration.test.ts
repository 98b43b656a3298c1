/**
 * Migration 10 (DESIGN.md 11, "What is captured is what is searched"): a
 * store written by the release before it (test/fixtures/exec-store, made by
 * commit d1b2950's binary: see its make.ts) kept Codex's exec_command_end
 * lines as `[event_msg exec_command_end] {...}` notes (noise). After the
 * migration the unified exec and user shell ones are the tool results
 * today's capture stores for the same lines, row for row and hash for hash:
 * a query whose words a command's two polls split is answered, a replay of
 * every line is a duplicate (I3), and the notes' words left the index (I9).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { captureSession, projectSession } from "../../src/project.ts";
import { SearchClass } from "../../src/search/search-class.ts";
import type { Memory } from "../../src/store/types.ts";
import { MIGRATIONS } from "../../src/store/sqlite/migrate.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { replayRollout } from "../capture/_codex.ts";
import { CWD, ROLLOUT, THREAD } from "../fixtures/exec-store/make.ts";
import { filesContaining, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "exec-store");
const SESSION = captureSession(projectSession(CWD), THREAD);
/** The exec_command_end lines' positions: a test run over two polls, a failing command, the user's own, the classic shell tool's, an interaction. */
const RUN = 7;
const FAILED = 12;
const USER = 14;
const SHELL = 17;
const WRITE = 20;

function oldStore() {
  const dir = tempDir();
  cpSync(join(FIXTURE, "data"), dir.path, { recursive: true });
  return dir;
}

/** Every captured row of a store, by idempotency key: text, meta, class and hashes. */
function capturedRows(file: string): Map<string, { lsn: number; text: string; meta: Record<string, unknown>; sclass: number; op: string; content: string }> {
  const db = new Database(file, { readonly: true });
  const all = db
    .query(
      "SELECT lsn, idem_key, text, data, sclass, hex(op_hash) AS op, hex(content_hash) AS content FROM tape WHERE kind = 'turn' AND idem_key IS NOT NULL ORDER BY lsn",
    )
    .all() as { lsn: number; idem_key: string; text: string; data: string; sclass: number; op: string; content: string }[];
  db.close();
  return new Map(all.map((r) => [r.idem_key, { lsn: r.lsn, text: r.text, meta: JSON.parse(r.data).meta, sclass: r.sclass, op: r.op, content: r.content }]));
}

/** Today's capture of the fixture's rollout, appended to `m`. */
const captureRollout = (m: Memory) => replayRollout(m, { path: join(FIXTURE, ROLLOUT), thread: THREAD, session: SESSION });

const key = (position: number) => `codex:${THREAD}:${position}:0`;

describe("migration 10 on a store of the previous release", () => {
  test("with progress, the unified exec and user shell ends become tool results; the classic shell tool's stays a note", () => {
    using dir = oldStore();
    const old = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
    expect((old.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(9);
    expect(old.query("SELECT count(*) AS n FROM tape WHERE text LIKE '[event_msg exec_command_end] {%' AND sclass = 9").get()).toEqual({ n: 5 });
    old.close();
    const progress: [string, number, number][] = [];
    openSqliteStore(dir.path, { onProgress: (what, done, total) => progress.push([what, done, total]) }).close();
    expect(progress).toEqual([["migration 10: Codex command output", 5, 5]]);
    const db = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
    expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(MIGRATIONS.length);
    db.close();
    const r = capturedRows(join(dir.path, "zerodb.sqlite"));
    const run = r.get(key(RUN))!;
    expect([run.text, run.sclass]).toEqual([
      "[tool_result]\n$ npx vitest --run src/ledger-reconcile.test.ts\n\n> ledger@1.0.0 test\n> vitest --run src/ledger-reconcile.test.ts\n\n RUN  v4.1.5 /work/ledger\n\n Test Files  1 passed (1)\n      Tests  12 passed (12)\n   Duration  3.12s\n",
      SearchClass.tool_result,
    ]);
    expect(run.meta).toEqual({
      type: "event_msg",
      timestamp: "2026-11-30T10:00:07.000Z",
      ordinal: 7,
      subtype: "exec_command_end",
      tool_use_ids: ["call_run1"],
      exit_code: 0,
      cwd: CWD,
      source: "unified_exec_startup",
      position: RUN,
      kind: "tool_result",
    });
    // The failing command: an error, its secret replaced once (the note counted it in the command and in parsed_cmd).
    expect([r.get(key(FAILED))!.text, r.get(key(FAILED))!.meta.redacted, r.get(key(FAILED))!.meta.exit_code]).toEqual([
      "[tool_result error]\n$ AWS_ACCESS_KEY_ID=[redacted:aws_access_key] ./scripts/sync-bucket.sh\nsync-bucket: bucket ledger-archive not found\n",
      1,
      3,
    ]);
    expect(r.get(key(USER))!.text).toBe("[tool_result]\n$ git status --short\n M src/reconcile.ts\n");
    expect(r.get(key(WRITE))!.text).toBe("[tool_result]\n$ ./scripts/reconcile.sh\nProceed? y\u0000\nReconciled 3 ledgers \uFDD0.\n");
    expect([USER, WRITE].map((p) => [r.get(key(p))!.meta.source, r.get(key(p))!.sclass])).toEqual([
      ["user_shell", SearchClass.tool_result],
      ["unified_exec_interaction", SearchClass.tool_result],
    ]);
    expect([r.get(key(SHELL))!.text.slice(0, 30), r.get(key(SHELL))!.meta.noise, r.get(key(SHELL))!.sclass]).toEqual([
      "[event_msg exec_command_end] {",
      "bookkeeping",
      SearchClass.noise,
    ]);
  });

  test("every row is what today's capture stores for its line, hashes included, and a replay of the rollout is a duplicate (I3)", async () => {
    using dir = oldStore();
    using freshDir = tempDir();
    const fresh = openSqliteStore(freshDir.path);
    expect(await captureRollout(fresh.memory("local"))).toEqual({ entries: 22, fresh: 22 });
    fresh.close();
    const store = openSqliteStore(dir.path);
    expect(await captureRollout(store.memory("local"))).toEqual({ entries: 22, fresh: 0 });
    expect((await store.check({ full: true })).ok).toBe(true);
    store.close();
    const strip = (rows: ReturnType<typeof capturedRows>) => new Map([...rows].map(([k, { lsn: _l, ...rest }]) => [k, rest]));
    expect(strip(capturedRows(join(dir.path, "zerodb.sqlite")))).toEqual(strip(capturedRows(join(freshDir.path, "zerodb.sqlite"))));
  });

  test("words the two polls split find the command's end; the notes' own words left the index and the files (I9)", async () => {
    using dir = oldStore();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    const lsn = capturedRows(join(dir.path, "zerodb.sqlite")).get(key(RUN))!.lsn;
    const { hits } = await m.search({ query: "ledger-reconcile tests 12 passed" });
    expect(hits[0]!.lsn).toBe(lsn);
    expect(hits.filter((h) => h.matched.length === hits[0]!.matched.length).map((h) => h.lsn)).toEqual([lsn]);
    // A word only the note's JSON held (its turn_id): in no row, no index entry, no file.
    expect((await m.search({ query: "zqxoldword", include_noise: true })).hits).toEqual([]);
    store.close();
    const db = new Database(join(dir.path, "zerodb.sqlite"));
    db.run("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 'words', 'row')");
    const terms = (db.query("SELECT term FROM temp.v").all() as { term: string }[]).map((t) => t.term);
    db.close();
    expect(terms.filter((t) => t.includes("zqxoldword") || t.includes("formatted_output"))).toEqual([]);
    expect(filesContaining(dir.path, "zqxoldword")).toEqual([]);
  });

  test("a rewritten row is forgotten as any; a second open changes nothing; sessions count the new bytes", async () => {
    using dir = oldStore();
    openSqliteStore(dir.path).close();
    const before = capturedRows(join(dir.path, "zerodb.sqlite"));
    const progress: string[] = [];
    const store = openSqliteStore(dir.path, { onProgress: (what) => progress.push(what) });
    expect(progress).toEqual([]);
    expect(capturedRows(join(dir.path, "zerodb.sqlite"))).toEqual(before);
    const m = store.memory("local");
    const listed = (await m.sessions({})).sessions.find((s) => s.name === SESSION)!;
    const db = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
    const sum = db.query("SELECT sum(bytes) AS b, count(*) AS n FROM tape WHERE kind = 'turn' AND subject = ?").get(SESSION) as { b: number; n: number };
    db.close();
    expect({ turns: listed.turns, bytes: listed.bytes }).toEqual({ turns: sum.n, bytes: sum.b });
    const failed = before.get(key(FAILED))!.lsn;
    expect((await m.forget({ selector: { turn: failed } })).hidden).toBe(1);
    expect((await m.search({ query: "ledger-archive", include_noise: true })).hits.map((h) => h.lsn)).not.toContain(failed);
    expect((await store.check({ full: true })).ok).toBe(true);
    store.close();
  });
});
