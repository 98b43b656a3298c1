/**
 * A 100 MiB tool output from Codex, Gemini CLI and opencode (DESIGN.md 7.2,
 * as big.test.ts does for Claude Code): stored as 34 chunks of at most 3 MiB,
 * each exactly once, over runs killed between and within chunks; one whole
 * run's peak memory stays a small multiple of the line, not of the output
 * read so far.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captureSession, projectSession } from "../../src/project.ts";
import { ZERODB, tempDir } from "../helpers.ts";
import { codexEnv, codexLayout, notification, rolloutLines } from "./_codex.ts";
import { type StoredTurn, jsonl, keysOf, readSession } from "./_fixtures.ts";
import { chatHead, geminiLayout, hookInput, msg } from "./_gemini.ts";
import { opencodeDb, opencodeEnv, toolPart } from "./_opencode.ts";

const MiB = 1024 * 1024;
const CHUNK = 3 * MiB;
/** A 100 MiB output of 65-byte ASCII lines. */
const BODY = (() => {
  const unit = `${"0123456789abcdef".repeat(4)}\n`;
  return unit.repeat(Math.ceil((100 * MiB) / unit.length)).slice(0, 100 * MiB);
})();
/**
 * Peak resident memory a run may reach with a 100 MiB line: the line is held
 * a few times over (bytes, text, parsed, rendered, chunks, the store's index),
 * never the whole file. Measured about 0.8-1.6 GiB; before opencode's records
 * carried a tool output once and batches cut in one line let the last reading
 * go, 1.8 GiB (Codex, Gemini sync) and 6.2 GiB (opencode).
 */
const MAX_RSS_KIB = 2304 * 1024;

/** Runs a command under /usr/bin/time; its exit code and peak resident memory in KiB. */
async function measured(cmd: string[], opts: { cwd: string; env: Record<string, string>; stdin?: string }): Promise<{ code: number; maxRssKib: number }> {
  const proc = Bun.spawn(["/usr/bin/time", "-f", "maxrss %M", ...cmd], {
    cwd: opts.cwd,
    env: opts.env,
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "ignore",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  const m = /maxrss (\d+)/.exec(err);
  if (!m) throw new Error(`no peak memory in ${JSON.stringify(err)}`);
  return { code, maxRssKib: Number(m[1]) };
}

/** Starts a run and kills it with SIGKILL after `delayMs` (the kill point, not a wait for a condition). */
async function killAfter(cmd: string[], opts: { cwd: string; env: Record<string, string>; stdin?: string }, delayMs: number): Promise<void> {
  const proc = Bun.spawn(cmd, {
    cwd: opts.cwd,
    env: opts.env,
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "ignore",
    stderr: "ignore",
  });
  await Bun.sleep(delayMs);
  proc.kill("SIGKILL");
  await proc.exited;
}

/** Checks the stored turns: keys once each, and the big turn's chunks joined back to `expected`. */
function expectChunked(turns: StoredTurn[], prefixOf: (key: string) => boolean, expected: string): void {
  const { duplicates } = keysOf(turns);
  expect(duplicates).toEqual([]);
  const big = turns.filter((t) => prefixOf(t.idem_key ?? ""));
  const n = Math.ceil(Buffer.byteLength(expected) / CHUNK);
  expect(n).toBe(34);
  expect(big.map((t) => [t.meta.chunk, t.meta.chunks, t.meta.truncated ?? null])).toEqual(Array.from({ length: n }, (_, k) => [k, n, null]));
  for (const t of big) expect(Buffer.byteLength(t.content)).toBeLessThanOrEqual(CHUNK);
  expect(big.map((t) => t.content).join("") === expected).toBe(true);
}

describe("a 100 MiB tool output from each harness", () => {
  test("Codex: a function_call_output line, through notify hooks killed mid-run; a run's peak memory follows the line, not the rollout", async () => {
    using dir = tempDir();
    const T = "019a0000-b1b1-7000-8000-000000000010";
    const T2 = "019a0000-b2b2-7000-8000-000000000020";
    const L = codexLayout(dir.path);
    const line = (ordinal: number, type: string, payload: object) => ({ timestamp: "2026-11-30T10:00:00.000Z", ordinal, type, payload });
    const rollout = (thread: string, outputs: number) => [
      ...rolloutLines(thread, L.cwd, 0).slice(0, 4),
      ...Array.from({ length: outputs }, (_, i) => [
        line(4 + 2 * i, "response_item", {
          type: "function_call",
          name: "exec_command",
          arguments: JSON.stringify({ cmd: "cat big.log" }),
          call_id: `call_${i}`,
        }),
        line(5 + 2 * i, "response_item", { type: "function_call_output", call_id: `call_${i}`, output: BODY }),
      ]).flat(),
      line(4 + 2 * outputs, "response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text: "after the big one" }] }),
    ];
    writeFileSync(L.rollout(T), rollout(T, 1).map(jsonl).join(""));
    writeFileSync(L.rollout(T2), rollout(T2, 2).map(jsonl).join(""));
    const T3 = "019a0000-b3b3-7000-8000-000000000030";
    writeFileSync(L.rollout(T3), rollout(T3, 3).map(jsonl).join(""));
    const run = { cwd: L.cwd, env: codexEnv(L) };
    const cmd = (thread: string) => [ZERODB, "hook", "codex", notification(thread, L.cwd)];
    // Whole runs into stores of their own: a rollout of one 100 MiB output, and one of two.
    using one = tempDir();
    using two = tempDir();
    using three = tempDir();
    const peak1 = await measured(cmd(T), { ...run, env: { ...run.env, ZERODB_HOME: join(one.path, "zerodb") } });
    const peak2 = await measured(cmd(T2), { ...run, env: { ...run.env, ZERODB_HOME: join(two.path, "zerodb") } });
    const peak3 = await measured(cmd(T3), { ...run, env: { ...run.env, ZERODB_HOME: join(three.path, "zerodb") } });
    expect([peak1.code, peak2.code, peak3.code]).toEqual([0, 0, 0]);
    expect(peak1.maxRssKib).toBeLessThan(MAX_RSS_KIB);
    expect(peak3.maxRssKib).toBeLessThan(MAX_RSS_KIB);
    // The next line is read while the one before is committed, so two big lines can be in memory at once
    // (and a collection that runs early can make the one-line peak a third lower): the rollout's third big
    // line must not add what the second did.
    expect(peak3.maxRssKib).toBeLessThan(peak2.maxRssKib * 1.25);
    console.log(
      `Codex hook peak memory: ${Math.round(peak1.maxRssKib / 1024)} MiB (one 100 MiB output), ${Math.round(peak2.maxRssKib / 1024)} MiB (two), ${Math.round(peak3.maxRssKib / 1024)} MiB (three)`,
    );
    for (const delay of [150, 400, 900, 1600]) await killAfter(cmd(T), run, delay);
    expect((await measured(cmd(T), run)).code).toBe(0);
    const session = captureSession(projectSession(L.cwd), T);
    for (const home of [dir.path, one.path]) {
      const turns = await readSession(home, session);
      expect(turns.map((t) => t.idem_key).filter((k) => !k!.startsWith(`codex:${T}:5:`))).toEqual([0, 1, 2, 3, 4, 6].map((p) => `codex:${T}:${p}:0`));
      expectChunked(turns, (k) => k.startsWith(`codex:${T}:5:`), `[tool_result]\n${BODY}`);
      expect(turns.at(-1)!.content).toBe("after the big one");
    }
    const both = await readSession(two.path, captureSession(projectSession(L.cwd), T2));
    expectChunked(both, (k) => k.startsWith(`codex:${T2}:7:`), `[tool_result]\n${BODY}`);
    expect(keysOf(both).keys).toHaveLength(4 + 1 + 34 + 1 + 34 + 1);
  }, 600_000);

  test("Gemini CLI: a tool call's 100 MiB result, over bounded hook runs and runs killed mid-run; sync's peak memory bounded", async () => {
    using dir = tempDir();
    const SID = "5e550000-b1b1-4000-8000-000000000011";
    const FILE = "session-2026-11-30T10-00-5e550000.jsonl";
    const L = geminiLayout(dir.path);
    const chat = L.chat(FILE);
    const call = {
      id: "call_big",
      name: "run_shell_command",
      args: { command: "cat big.log" },
      result: [{ functionResponse: { id: "call_big", name: "run_shell_command", response: { output: BODY } } }],
      status: "success",
      timestamp: "2026-11-30T10:00:00.000Z",
    };
    writeFileSync(
      chat,
      [chatHead(SID), msg.user("u1", "cat the log"), msg.gemini("g1", "", { toolCalls: [call] }), msg.gemini("g2", "after the big one")].map(jsonl).join(""),
    );
    const run = {
      cwd: L.cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: L.home, ZERODB_HOME: join(L.home, "zerodb"), GEMINI_SESSION_ID: SID, CLAUDE_PROJECT_DIR: L.cwd },
      stdin: hookInput(L, "AfterAgent", SID, chat),
    };
    const cmd = [ZERODB, "hook", "gemini"];
    // One hook run stores at most 32 MiB: the two lines before it and ten 3 MiB chunks.
    expect((await measured(cmd, run)).code).toBe(0);
    const session = captureSession(projectSession(L.cwd), SID);
    expect((await readSession(dir.path, session)).length).toBe(12);
    for (const delay of [150, 700]) await killAfter(cmd, run, delay);
    for (let i = 0; i < 6; i++) expect((await measured(cmd, run)).code).toBe(0);
    const key = `gemini:app/${FILE}`;
    const expected = `[tool_use run_shell_command]\n{"command":"cat big.log"}\n\n[tool_result]\n${BODY}`;
    const turns = await readSession(dir.path, session);
    expect(turns.map((t) => t.idem_key).filter((k) => !k!.startsWith(`${key}:2:`))).toEqual([0, 1, 3].map((p) => `${key}:${p}:0`));
    expectChunked(turns, (k) => k.startsWith(`${key}:2:`), expected);
    expect(turns.at(-1)!.content).toBe("after the big one");
    // capture sync reads it all in one process, 32 MiB per transaction, into a store of its own.
    using other = tempDir();
    const sync = await measured([ZERODB, "capture", "sync"], {
      cwd: L.cwd,
      env: { ...run.env, ZERODB_HOME: join(other.path, "zerodb"), CODEX_HOME: join(dir.path, "none") },
    });
    expect(sync.code).toBe(0);
    expect(sync.maxRssKib).toBeLessThan(MAX_RSS_KIB);
    console.log(`Gemini capture sync peak memory: ${Math.round(sync.maxRssKib / 1024)} MiB`);
    expectChunked(await readSession(other.path, session), (k) => k.startsWith(`${key}:2:`), expected);
  }, 300_000);

  test("opencode: a tool part's 100 MiB output, through plugin hooks killed mid-run; the hook's peak memory bounded", async () => {
    using dir = tempDir();
    const cwd = join(dir.path, "work", "app");
    mkdirSync(cwd, { recursive: true });
    const oc = opencodeDb(dir.path);
    const s = oc.session(cwd);
    const u = oc.user(s, ["cat the log"]);
    const a = oc.assistant(s, u, { finish: "tool-calls" });
    oc.part(s, a, toolPart("bash", "call_big", { command: "cat big.log" }, BODY));
    const b = oc.assistant(s, u);
    oc.part(s, b, { type: "text", text: "after the big one", time: { start: oc.now(), end: oc.now() } });
    oc.close();
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir.path, ...opencodeEnv(dir.path) };
    const cmd = [ZERODB, "hook", "opencode", s];
    using other = tempDir();
    const whole = await measured(cmd, { cwd: dir.path, env: { ...env, ZERODB_HOME: join(other.path, "zerodb") } });
    expect(whole.code).toBe(0);
    expect(whole.maxRssKib).toBeLessThan(MAX_RSS_KIB);
    console.log(`opencode hook peak memory: ${Math.round(whole.maxRssKib / 1024)} MiB`);
    const run = { cwd: dir.path, env: { ...env, ZERODB_HOME: join(dir.path, "zerodb") } };
    for (const delay of [150, 400, 900, 1600]) await killAfter(cmd, run, delay);
    expect((await measured(cmd, run)).code).toBe(0);
    const session = captureSession(projectSession(cwd), s);
    for (const home of [dir.path, other.path]) {
      const turns = await readSession(home, session);
      const big = turns.find((t) => t.meta.chunks !== undefined)!.idem_key!.replace(/:\d+$/, ":");
      expectChunked(turns, (k) => k.startsWith(big), `[tool_result]\n${BODY}`);
      expect(turns.filter((t) => !t.idem_key!.startsWith(big)).map((t) => t.meta.chunk ?? null)).toEqual(
        turns.filter((t) => !t.idem_key!.startsWith(big)).map(() => null),
      );
      expect(turns.at(-1)!.content).toBe("after the big one");
    }
  }, 300_000);
});
