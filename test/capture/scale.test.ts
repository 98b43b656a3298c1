/**
 * A hook's work does not grow with the rest of the store (DESIGN.md 7.2:
 * the hook runs on every prompt). Measured as work, not time: the SQL
 * statements a run executes, the rows they return, and the full scans in
 * their query plans, as ZERODB_CAPTURE_TRACE reports them.
 */
import { expect, test } from "bun:test";
import { tempDir } from "../helpers.ts";
import { appendLines, claudeLayout, conversation, hookInput, runJson, runZ, turnCount, writeTranscript } from "./_fixtures.ts";

const A = "a0a0a0a0-0000-4000-8000-000000000005";
const B = "b0b0b0b0-0000-4000-8000-000000000006";

test("10,000 turns of other sessions in the same project between two hooks do not make the second do more", async () => {
  using dir = tempDir();
  const L = claudeLayout(dir.path);
  const c = conversation(A, L.cwd);
  const hook = async () => {
    const r = await runZ(["hook", "claude-code"], {
      home: L.home,
      cwd: L.cwd,
      env: { ZERODB_CAPTURE_TRACE: "1" },
      stdin: hookInput("Stop", { sessionId: A, transcript: L.transcript(A), cwd: L.cwd }),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    return JSON.parse(r.stderr);
  };
  const five = (round: string) =>
    appendLines(
      L.transcript(A),
      Array.from({ length: 5 }, (_, i) => c.user(`${round} ${i}`)),
    );
  five("warm-up");
  await hook();
  five("before");
  const before = await hook();

  // Another session of the same project: 10,000 turns, captured by a backfill.
  writeTranscript(L.transcript(B), B, L.cwd, 10_000, "elsewhere");
  const sync = await runJson(["capture", "sync", "--transcript", L.transcript(B)], { home: L.home });
  expect(sync.appended).toBe(10_000);
  const project = (await runJson(["sessions"], { home: L.home })).sessions[0].name.split("/")[0];
  await runJson(["append", "--session", project, "a note in the project session"], { home: L.home });

  five("after");
  const after = await hook();
  expect(before).toMatchObject({ event: "Stop", appended: 5, lines: 5, behind: false });
  expect(after).toMatchObject({ event: "Stop", appended: 5, lines: 5, behind: false });
  expect(before.sql.scans).toEqual([]);
  expect(after.sql).toEqual(before.sql);
  expect(before.sql.statements).toBeGreaterThan(0);
  const hash = (id: string) => new Bun.CryptoHasher("sha256").update(id).digest("hex").slice(0, 16);
  expect(await turnCount(L.home, `${project}/${hash(A)}`)).toBe(15);
  expect(await turnCount(L.home, `${project}/${hash(B)}`)).toBe(10_000);
}, 120_000);
