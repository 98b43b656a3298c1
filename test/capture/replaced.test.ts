/**
 * A transcript replaced while it is being read (issue 19, README "Exactly
 * once"): deleted and written again under the same path, or rewritten shorter
 * with the same first line, it is not read from the old cursor as if it went
 * on. It becomes a source of its own (`<key>~<12 hex>`), read from its start
 * with its own idempotency keys; what was stored of the earlier file stays,
 * and nothing is stored twice. Codex compressing a rollout to `.jsonl.zst`
 * is not a replacement (codex.test.ts checks it goes on where it was).
 */
import { describe, expect, test } from "bun:test";
import { unlinkSync, writeFileSync } from "node:fs";
import { captureSession, projectSession } from "../../src/project.ts";
import { sha256Hex } from "../../src/util/hash.ts";
import { tempDir } from "../helpers.ts";
import { codexLayout, rolloutLines, spawnCodexHook } from "./_codex.ts";
import { claudeLayout, expectedKeys, jsonl, keysOf, logLines, readSession, runHook, runJson, runZ, spawnHook, writeTranscript } from "./_fixtures.ts";
import { chatHead, geminiLayout, msg } from "./_gemini.ts";

const T = "019a0000-3333-7000-8000-000000000003";
const SID = "5e550000-bbbb-4000-8000-000000000002";
const CLAUDE = "c1a0de00-0000-4000-8000-000000000004";
const FILE = "session-2026-11-30T10-00-5e550000.jsonl";

/** The key of the generation after `previous` whose file starts with `firstLine` (README: `<key>~<12 hex>`). */
function nextKey(source: string, previous: string, firstLine: string): string {
  const head = sha256Hex(firstLine).slice(0, 32);
  return `${source}~${sha256Hex(`${previous}\n${head}`).slice(0, 12)}`;
}

describe("a transcript replaced under its path", () => {
  test("a Codex rollout deleted and written again, longer than the cursor: read from its start as a new source; the first one's turns stay", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    const first = rolloutLines(T, L.cwd, 2, "old");
    writeFileSync(L.rollout(T), first.map(jsonl).join(""));
    expect(await spawnCodexHook(L, T).exited).toBe(0);
    // Another rollout under the same name (its session_meta differs), longer than the first.
    unlinkSync(L.rollout(T));
    const second = rolloutLines(T, L.cwd, 5, "new").map((l: any) => (l.type === "session_meta" ? { ...l, timestamp: "2026-11-30T11:00:00.000Z" } : l));
    writeFileSync(L.rollout(T), second.map(jsonl).join(""));
    const env = { CODEX_HOME: L.codexHome, CLAUDE_CONFIG_DIR: `${dir.path}/no-claude` };
    const gen = nextKey(`codex:${T}`, `codex:${T}`, jsonl(second[0]));
    const sync = await runJson(["capture", "sync"], { home: dir.path, env });
    expect(sync.appended).toBe(second.length);
    expect(sync.warnings).toEqual([expect.stringContaining(`${L.rollout(T)} was replaced (its first line changed): read from its start as ${gen}`)]);
    // Replaying changes nothing, by hook or sync; the hook goes on with the new file.
    expect((await runJson(["capture", "sync"], { home: dir.path, env })).appended).toBe(0);
    expect(await spawnCodexHook(L, T).exited).toBe(0);
    const turns = await readSession(dir.path, captureSession(projectSession(L.cwd), T));
    expect(keysOf(turns)).toEqual({ keys: [...expectedKeys(`codex:${T}`, first.length), ...expectedKeys(gen, second.length)], duplicates: [] });
    // A turn's answer is line 4 + 8 × turn + 5 of its rollout (_codex.ts).
    expect(turns.filter((t) => t.content === "old 1 answer" || t.content === "new 4 answer").map((t) => t.idem_key)).toEqual([
      `codex:${T}:17:0`,
      `${gen}:41:0`,
    ]);
    // Appended to, the new file is read on from its own cursor.
    writeFileSync(L.rollout(T), [...second, ...rolloutLines(T, L.cwd, 1, "later").slice(4)].map(jsonl).join(""));
    const more = await runJson(["capture", "sync"], { home: dir.path, env });
    expect([more.appended, more.warnings]).toEqual([8 + 3, []]);
    const status = await runJson(["capture", "status"], { home: dir.path, env });
    // Status lists the replaced file's cursor as replaced (not behind on a file it no longer reads), then the new one.
    expect(status.sessions.map((s: any) => [s.source, s.lines_captured, s.lines_behind, s.replaced ?? false])).toEqual([
      [`codex:${T}`, first.length, 0, true],
      [gen, second.length + 11, 0, false],
    ]);
    const human = await runZ(["capture", "status"], { home: dir.path, env });
    expect(human.stdout.split("\n").filter((l) => l.includes("(file replaced: read on as a new source)"))).toEqual([expect.stringContaining(`codex:${T} `)]);
  }, 60_000);

  test("a Gemini chat rewritten shorter with the same first line: a new source from its start, not 'shorter than its cursor' forever", async () => {
    using dir = tempDir();
    const L = geminiLayout(dir.path);
    const chat = L.chat(FILE);
    const head = chatHead(SID);
    writeFileSync(chat, [head, msg.user("u1", "a long first question ".repeat(20)), msg.gemini("g1", "a long first answer ".repeat(20))].map(jsonl).join(""));
    const home = { home: dir.path, env: { CODEX_HOME: `${dir.path}/none` } };
    expect((await runJson(["capture", "sync"], home)).appended).toBe(3);
    writeFileSync(chat, [head, msg.user("u9", "short")].map(jsonl).join(""));
    const key = `gemini:app/${FILE}`;
    const gen = nextKey(key, key, jsonl(head));
    const sync = await runJson(["capture", "sync"], home);
    expect(sync.appended).toBe(2);
    expect(sync.warnings).toEqual([expect.stringMatching(/was replaced \(it is shorter than its cursor \(\d+ < \d+ bytes\)\)/)]);
    expect((await runJson(["capture", "sync"], home)).appended).toBe(0);
    const turns = await readSession(dir.path, captureSession(projectSession(L.cwd), SID));
    expect(keysOf(turns)).toEqual({ keys: [...expectedKeys(key, 3), ...expectedKeys(gen, 2)], duplicates: [] });
    expect(turns.at(-1)!.content).toBe("short");
  }, 60_000);

  test("a Claude Code transcript replaced twice, with hooks racing on it: three generations, each line once, logged", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const a = writeTranscript(L.transcript(CLAUDE), CLAUDE, L.cwd, 4, "first");
    expect((await runHook(L, "Stop", CLAUDE)).code).toBe(0);
    unlinkSync(L.transcript(CLAUDE));
    const b = writeTranscript(L.transcript(CLAUDE), CLAUDE, L.cwd, 6, "second");
    // Hooks racing on the replaced file all take it as the same new source.
    expect(await Promise.all(Array.from({ length: 4 }, () => spawnHook(L, "Stop", CLAUDE).exited))).toEqual([0, 0, 0, 0]);
    expect((await runHook(L, "Stop", CLAUDE)).code).toBe(0);
    const c = writeTranscript(L.transcript(CLAUDE), CLAUDE, L.cwd, 3, "third");
    expect((await runHook(L, "Stop", CLAUDE)).code).toBe(0);
    const g1 = nextKey(CLAUDE, CLAUDE, jsonl(b[0]));
    const g2 = nextKey(CLAUDE, g1, jsonl(c[0]));
    const session = captureSession(projectSession(L.cwd), CLAUDE);
    const turns = await readSession(dir.path, session);
    expect(keysOf(turns)).toEqual({ keys: [...expectedKeys(CLAUDE, a.length), ...expectedKeys(g1, b.length), ...expectedKeys(g2, c.length)], duplicates: [] });
    expect(turns.map((t) => t.content.split(" ")[0])).toEqual([...a.map(() => "first"), ...b.map(() => "second"), ...c.map(() => "third")]);
    // One log line per run that found a file replaced (the racing runs may each have found it).
    const log = await logLines(dir.path);
    expect(log.every((l) => l.includes("was replaced (its first line changed): read from its start as"))).toBe(true);
    expect(log.filter((l) => l.includes(`as ${g1};`)).length).toBeGreaterThanOrEqual(1);
    expect(log.filter((l) => l.includes(`as ${g2};`))).toHaveLength(1);
  }, 60_000);
});
