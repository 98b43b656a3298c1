/**
 * I3 for capture: after the capture session is forgotten and its cursor
 * deleted, a replayed capture brings back nothing forgotten; only lines
 * written afterwards are stored.
 */
import { expect, test } from "bun:test";
import { tempDir } from "../helpers.ts";
import {
  appendLines,
  claudeLayout,
  conversation,
  onlyCaptureSession,
  openDb,
  readSession,
  runHook,
  runJson,
  sessionNames,
  writeTranscript,
} from "./_fixtures.ts";

const SID = "f0f0f0f0-0000-4000-8000-000000000007";

test("forgetting the capture session, deleting the cursor and running the hook again brings no forgotten turn back", async () => {
  using dir = tempDir();
  const L = claudeLayout(dir.path);
  writeTranscript(L.transcript(SID), SID, L.cwd, 100, "zanzibarword");
  for (let i = 0; i < 2; i++) expect((await runHook(L, "Stop", SID)).code).toBe(0);
  const session = await onlyCaptureSession(L.home);
  expect((await readSession(L.home, session)).length).toBe(100);

  const forgot = await runJson(["forget", "--session", session], { home: L.home });
  expect(forgot.hidden).toBe(100);
  const db = openDb(L.home);
  expect(db.query("DELETE FROM capture_cursors").run().changes).toBe(1);
  db.close();

  // The hook and the backfill both replay the transcript from its first line.
  for (let i = 0; i < 3; i++) expect((await runHook(L, "Stop", SID)).code).toBe(0);
  const sync = await runJson(["capture", "sync", "--transcript", L.transcript(SID)], { home: L.home });
  expect(sync).toMatchObject({ appended: 0, warnings: [] });
  expect(await sessionNames(L.home)).toEqual([]);
  expect((await runJson(["search", "zanzibarword"], { home: L.home })).hits).toEqual([]);

  // What is written after the forget is captured as usual.
  appendLines(L.transcript(SID), [conversation(SID, L.cwd).user("written after the forget")]);
  expect((await runHook(L, "Stop", SID)).code).toBe(0);
  const turns = await readSession(L.home, session);
  expect(turns.map((t) => [t.idem_key, t.content])).toEqual([[`${SID}:100:0`, "written after the forget"]]);
}, 60_000);
