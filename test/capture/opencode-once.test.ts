/**
 * opencode capture, each record exactly once (DESIGN.md 14): sessions in
 * opencode.db (fixtures with opencode's schema and shapes, see _opencode.ts)
 * captured only once a message is finished, by `capture sync` and by the hook
 * its plugin runs, across repeated runs, SIGKILLed and racing hooks and a
 * revert, never failing on a locked database.
 */
import { describe, expect, test } from "bun:test";
import { captureSession, projectSession } from "../../src/project.ts";
import { tempDir } from "../helpers.ts";
import { logLines, readSession } from "./_fixtures.ts";
import { EXCHANGE_RECORDS, expectOrderedOnce, opencodeDb, project, spawnOpencodeHook, sync } from "./_opencode.ts";

describe("opencode capture", () => {
  test("a message still streaming is not captured; once complete its parts are stored once, as they ended", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    oc.exchange(s, 0);
    const u = oc.user(s, ["write a poem"]);
    const a = oc.assistant(s, u, { completed: false });
    const text = oc.part(s, a, { type: "text", text: "Roses" });
    // A prompt queued while the reply streams waits behind it.
    oc.user(s, ["and a second one"]);
    const first = await sync(dir.path);
    expect(first.appended).toBe(EXCHANGE_RECORDS + 2);
    oc.updatePart(text, { type: "text", text: "Roses are red" });
    expect((await sync(dir.path)).appended).toBe(0);
    oc.updatePart(text, { type: "text", text: "Roses are red, violets are blue" });
    oc.complete(a);
    expect((await sync(dir.path)).appended).toBe(2 + 2);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expect(turns.filter((t) => t.meta.kind === "reply" && t.content.startsWith("Roses")).map((t) => t.content)).toEqual(["Roses are red, violets are blue"]);
    expect(turns.filter((t) => t.meta.kind === "prompt").map((t) => t.content)).toEqual(["turn 0 question", "write a poem", "and a second one"]);
    expectOrderedOnce(turns, EXCHANGE_RECORDS + 6);
    oc.close();
  }, 60_000);

  test("a reply abandoned mid-stream (opencode killed) is captured once a later reply exists", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    const u = oc.user(s, ["go"]);
    const a = oc.assistant(s, u, { completed: false });
    oc.part(s, a, { type: "tool", tool: "bash", callID: "c", state: { status: "running", input: { command: "sleep 99" }, time: { start: 1 } } });
    expect((await sync(dir.path)).appended).toBe(2);
    const u2 = oc.user(s, ["again"]);
    const b = oc.assistant(s, u2);
    oc.part(s, b, { type: "text", text: "done" });
    expect((await sync(dir.path)).appended).toBe(3 + 4);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expect(turns.find((t) => t.meta.kind === "tool_result")!.content).toBe("[tool_result running]\n(no result: the reply ended before the tool answered)");
    oc.close();
  }, 60_000);

  test("a database held by a writer: in WAL mode the committed rows are read and the rest later; a locked rollback-journal database is a warning, caught up later", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    oc.exchange(s, 0);
    oc.db.run("BEGIN IMMEDIATE");
    oc.exchange(s, 1);
    const during = await sync(dir.path);
    expect(during).toMatchObject({ appended: EXCHANGE_RECORDS, warnings: [] });
    oc.db.run("COMMIT");
    expect((await sync(dir.path)).appended).toBe(EXCHANGE_RECORDS);
    oc.close();

    using dir2 = tempDir();
    const cwd2 = project(dir2.path);
    const journal = opencodeDb(dir2.path, { journal: "delete" });
    const s2 = journal.session(cwd2);
    journal.exchange(s2, 0);
    journal.db.run("BEGIN EXCLUSIVE");
    journal.exchange(s2, 1);
    const locked = await sync(dir2.path);
    expect(locked.appended).toBe(0);
    expect(locked.warnings.join("\n")).toContain("SQLITE_BUSY");
    journal.db.run("COMMIT");
    const after = await sync(dir2.path);
    expect(after).toMatchObject({ appended: 2 * EXCHANGE_RECORDS, warnings: [] });
    journal.close();
  }, 60_000);

  test("the hook captures the session and its subagents; repeated hooks and syncs store nothing twice; a missing session is one log line", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    for (let i = 0; i < 3; i++) oc.exchange(s, i);
    const child = oc.session(cwd, s);
    oc.exchange(child, 9, "sub");
    for (const id of [child, s, s]) {
      const hook = spawnOpencodeHook(dir.path, id);
      expect({ code: await hook.exited, out: await new Response(hook.stdout).text() }).toEqual({ code: 0, out: "" });
    }
    expect((await sync(dir.path)).appended).toBe(0);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expectOrderedOnce(turns, 4 * EXCHANGE_RECORDS);
    expect(turns.filter((t) => t.meta.isSidechain).length).toBe(EXCHANGE_RECORDS);
    expect(await logLines(dir.path)).toEqual([]);
    const missing = spawnOpencodeHook(dir.path, "ses_nothere");
    expect(await missing.exited).toBe(0);
    expect((await logLines(dir.path)).join("\n")).toContain("no opencode database holds session ses_nothere");
    oc.close();
  }, 60_000);

  test("20 hooks killed with SIGKILL, then capture sync: no duplicate, no gap", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    const n = 300;
    oc.db.run("BEGIN");
    for (let i = 0; i < n; i++) oc.exchange(s, i, "kill");
    oc.db.run("COMMIT");
    let killed = 0;
    for (let i = 0; i < 200 && killed < 20; i++) {
      const proc = spawnOpencodeHook(dir.path, s);
      // The delay is the kill point inside a run, not a wait for a condition.
      await Bun.sleep(10 + ((i * 7) % 60));
      proc.kill("SIGKILL");
      await proc.exited;
      if (proc.signalCode === "SIGKILL") killed++;
    }
    expect(killed).toBe(20);
    const r = await sync(dir.path);
    expect(r.warnings).toEqual([]);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expectOrderedOnce(turns, n * EXCHANGE_RECORDS);
    oc.close();
  }, 180_000);

  test("hooks racing while opencode writes (a reply streaming at each round) never store a record twice or skip one", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    let done = 0;
    for (let round = 0; round < 6; round++) {
      for (let k = 0; k < 4 + round; k++) oc.exchange(s, done++, "race");
      // A reply still streaming when the hooks run: finished only after them.
      const u = oc.user(s, [`race ${done} question`]);
      const a = oc.assistant(s, u, { completed: false });
      oc.part(s, a, { type: "text", text: "partial" });
      const procs = [0, 1, 2].map(() => spawnOpencodeHook(dir.path, s));
      expect(await Promise.all(procs.map((p) => p.exited))).toEqual([0, 0, 0]);
      oc.complete(a);
    }
    const last = spawnOpencodeHook(dir.path, s);
    expect(await last.exited).toBe(0);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expectOrderedOnce(turns, done * EXCHANGE_RECORDS + 6 * 4);
    expect(turns.filter((t) => t.content === "partial")).toHaveLength(6);
    expect(await logLines(dir.path)).toEqual([]);
    oc.close();
  }, 120_000);

  test("a revert deleting captured messages loses nothing stored and shifts nothing: later messages are captured once", async () => {
    using dir = tempDir();
    const cwd = project(dir.path);
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    oc.exchange(s, 0);
    oc.exchange(s, 1);
    expect((await sync(dir.path)).appended).toBe(2 * EXCHANGE_RECORDS);
    // opencode's revert cleanup: the messages after the revert point go, with their parts.
    const gone = oc.db.query<{ id: string }, [string]>("SELECT id FROM message WHERE session_id = ? ORDER BY id").all(s).slice(3);
    for (const m of gone) {
      oc.db.query("DELETE FROM part WHERE message_id = ?").run(m.id);
      oc.db.query("DELETE FROM message WHERE id = ?").run(m.id);
    }
    oc.exchange(s, 2);
    expect((await sync(dir.path)).appended).toBe(EXCHANGE_RECORDS);
    const turns = await readSession(dir.path, captureSession(projectSession(cwd), s));
    expectOrderedOnce(turns, 3 * EXCHANGE_RECORDS);
    expect(turns.filter((t) => t.meta.kind === "prompt").map((t) => t.content)).toEqual(["turn 0 question", "turn 1 question", "turn 2 question"]);
    oc.close();
  }, 60_000);
});
