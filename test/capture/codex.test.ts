/**
 * Codex CLI capture (DESIGN.md 14): rollouts (fixtures written from
 * HARNESSES.md, see _codex.ts) backfilled by `capture sync`, captured by the
 * notify hook, exactly once across repeated runs, SIGKILLed runs and the
 * rollout's compression to `.jsonl.zst`, under the same project session as
 * Claude Code's for the same directory.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { captureSession, projectSession } from "../../src/project.ts";
import { tempDir } from "../helpers.ts";
import { codexEnv, codexLayout, notification, rolloutLines, spawnCodexHook, writeRollout } from "./_codex.ts";
import { appendLines, expectedKeys, jsonl, keysOf, logLines, readSession, runJson, runZ } from "./_fixtures.ts";

const T1 = "019a0000-1111-7000-8000-000000000001";
const T2 = "019a0000-2222-7000-8000-000000000002";
const linesOf = (turns: number) => 4 + 8 * turns + 3;

describe("Codex capture", () => {
  test("capture sync backfills every rollout once, into the directory's project session, with kinds; status lists them", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    writeRollout(L.rollout(T1), T1, L.cwd, 3);
    const env = { CODEX_HOME: L.codexHome, CLAUDE_CONFIG_DIR: `${dir.path}/no-claude` };
    const first = await runJson(["capture", "sync"], { home: dir.path, env });
    expect(first).toMatchObject({ transcripts: 1, appended: linesOf(3), skipped: 0, warnings: [] });
    const again = await runJson(["capture", "sync"], { home: dir.path, env });
    expect(again).toMatchObject({ appended: 0, skipped: 0 });
    const session = captureSession(projectSession(L.cwd), T1);
    const turns = await readSession(dir.path, session);
    expect(keysOf(turns)).toEqual({ keys: expectedKeys(`codex:${T1}`, linesOf(3)), duplicates: [] });
    const t = turns.slice(4, 12).map((x: any) => [x.role, x.meta.kind, x.meta.noise ?? null, x.content]);
    expect(t).toEqual([
      ["user", "prompt", null, "turn 0 question"],
      ["note", "system", "bookkeeping", expect.stringContaining("[event_msg user_message]")],
      ["assistant", "reply", null, "[reasoning]\nturn 0 thinking"],
      ["assistant", "tool_call", null, '[tool_use exec_command]\n{"cmd":"echo 0"}'],
      ["tool", "tool_result", null, "[tool_result]\nturn 0 output"],
      ["assistant", "reply", null, "turn 0 answer"],
      ["note", "system", "bookkeeping", expect.stringContaining("[event_msg agent_message]")],
      ["note", "system", "bookkeeping", expect.stringContaining("token_count")],
    ]);
    // Injected context is not a prompt.
    expect(turns.slice(1, 3).map((x: any) => x.meta.kind)).toEqual(["system", "system"]);
    // Search finds the answer once: the event_msg copy is bookkeeping.
    const { hits } = await runJson(["search", "turn", "2", "answer"], { home: dir.path });
    expect(hits.filter((h: any) => h.matched.length === 3).map((h: any) => [h.session, h.role])).toEqual([[session, "assistant"]]);
    const status = await runJson(["capture", "status"], { home: dir.path, env });
    expect(status.sessions).toEqual([
      { source: `codex:${T1}`, harness: "codex", capture_session: session, transcript: L.rollout(T1), lines_captured: linesOf(3), lines_behind: 0 },
    ]);
  }, 60_000);

  test("the notify hook catches a thread up at once; lines added before Codex compressed the rollout to .jsonl.zst are read from it, none twice", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    const all = rolloutLines(T2, L.cwd, 20); // 167 lines, more than one hook run of Claude Code's would take
    writeFileSync(L.rollout(T2), all.slice(0, 150).map(jsonl).join(""));
    const hook = spawnCodexHook(L, T2);
    expect(await hook.exited).toBe(0);
    expect(await new Response(hook.stdout).text()).toBe("");
    const env = { CODEX_HOME: L.codexHome, CLAUDE_CONFIG_DIR: `${dir.path}/no-claude` };
    const before = await runJson(["capture", "status"], { home: dir.path, env });
    expect(before.sessions.map((s: any) => [s.source, s.lines_captured, s.lines_behind])).toEqual([[`codex:${T2}`, 150, 0]]);
    // The thread goes on, then Codex's local_thread_store_compression zstd-compresses it in place and removes the plain file.
    appendLines(L.rollout(T2), all.slice(150));
    const zst = `${L.rollout(T2)}.zst`;
    writeFileSync(zst, Bun.zstdCompressSync(readFileSync(L.rollout(T2)), { level: 3 }));
    unlinkSync(L.rollout(T2));
    const sync = await runJson(["capture", "sync"], { home: dir.path, env });
    expect(sync).toMatchObject({ transcripts: 1, appended: all.length - 150, skipped: 0, warnings: [] });
    expect((await runJson(["capture", "sync"], { home: dir.path, env })).appended).toBe(0);
    const turns = await readSession(dir.path, captureSession(projectSession(L.cwd), T2));
    expect(keysOf(turns)).toEqual({ keys: expectedKeys(`codex:${T2}`, all.length), duplicates: [] });
    const after = await runJson(["capture", "status"], { home: dir.path, env });
    expect(after.sessions.map((s: any) => [s.source, s.transcript, s.lines_captured, s.lines_behind])).toEqual([[`codex:${T2}`, zst, all.length, 0]]);
    // A .zst cut short (being written) is left for later, with one warning, and the cursor stays.
    writeFileSync(zst, readFileSync(zst).subarray(0, 20));
    const cut = await runJson(["capture", "sync"], { home: dir.path, env });
    expect([cut.appended, cut.warnings]).toEqual([0, [`cannot read ${zst} (EZSTD)`]]);
    expect(await logLines(dir.path)).toEqual([]);
  }, 60_000);

  test("a subagent thread Codex spawned (session_meta source subagent.thread_spawn) goes into its root thread's session marked as a sidechain; a review thread is marked too", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    const CHILD = "019a0000-4444-7000-8000-000000000004";
    const GRANDCHILD = "019a0000-6666-7000-8000-000000000006";
    const REVIEW = "019a0000-5555-7000-8000-000000000005";
    // As Codex 0.171 writes a spawned thread's session_meta (seen in codex.e2e.test.ts): `session_id` the root thread's.
    const withSource = (lines: unknown[], source: unknown, root?: string) =>
      lines.map((l: any) =>
        l.type === "session_meta"
          ? { ...l, payload: { ...l.payload, ...(root ? { session_id: root } : {}), source, thread_source: "subagent", agent_nickname: "Scout" } }
          : l,
      );
    const spawn = (parent: string, depth: number) => ({
      subagent: { thread_spawn: { parent_thread_id: parent, depth, agent_path: null, agent_nickname: "Scout", agent_role: null } },
    });
    const write = (thread: string, lines: unknown[]) => writeFileSync(L.rollout(thread), lines.map(jsonl).join(""));
    writeRollout(L.rollout(T1), T1, L.cwd, 1, "parent");
    write(CHILD, withSource(rolloutLines(CHILD, L.cwd, 1, "child"), spawn(T1, 1), T1));
    // A subagent's subagent names its own parent in the source and the root thread in session_id: the root's session holds it.
    write(GRANDCHILD, withSource(rolloutLines(GRANDCHILD, L.cwd, 1, "grandchild"), spawn(CHILD, 2), T1));
    write(REVIEW, withSource(rolloutLines(REVIEW, L.cwd, 1, "review"), { subagent: "review" }));
    // The notify hook for the child thread, before any sync: already into the parent's session.
    expect(await spawnCodexHook(L, CHILD).exited).toBe(0);
    const env = { CODEX_HOME: L.codexHome, CLAUDE_CONFIG_DIR: `${dir.path}/no-claude` };
    const sync = await runJson(["capture", "sync"], { home: dir.path, env });
    expect(sync).toMatchObject({ transcripts: 4, appended: 3 * linesOf(1), warnings: [] });
    const parent = await readSession(dir.path, captureSession(projectSession(L.cwd), T1));
    const keys = [CHILD, T1, GRANDCHILD].flatMap((t) => expectedKeys(`codex:${t}`, linesOf(1)));
    expect(keysOf(parent)).toEqual({ keys, duplicates: [] });
    for (const sub of [CHILD, GRANDCHILD]) {
      const own = parent.filter((t) => t.idem_key!.startsWith(`codex:${sub}:`));
      expect(own.every((t) => t.meta.isSidechain === true && t.meta.agent_id === sub)).toBe(true);
    }
    expect(parent.filter((t) => t.idem_key!.startsWith(`codex:${T1}:`)).some((t) => t.meta.isSidechain !== undefined)).toBe(false);
    expect(parent.find((t) => t.idem_key!.startsWith(`codex:${CHILD}:`) && t.meta.kind === "prompt")!.content).toBe("child 0 question");
    // A review thread names no parent: its own session, its turns marked.
    const review = await readSession(dir.path, captureSession(projectSession(L.cwd), REVIEW));
    expect(review).toHaveLength(linesOf(1));
    expect(review.every((t) => t.meta.isSidechain === true && t.meta.agent_id === REVIEW)).toBe(true);
  }, 60_000);

  test("the root thread's notify hook also catches up the threads Codex spawned under it, and no other thread", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    const CHILD = "019a0000-4444-7000-8000-000000000004";
    const GRANDCHILD = "019a0000-6666-7000-8000-000000000006";
    const OTHER = "019a0000-7777-7000-8000-000000000007";
    const spawned = (thread: string, parent: string) =>
      rolloutLines(thread, L.cwd, 1, thread === CHILD ? "child" : "grandchild").map((l: any) =>
        l.type === "session_meta"
          ? { ...l, payload: { ...l.payload, session_id: T1, source: { subagent: { thread_spawn: { parent_thread_id: parent, depth: 1 } } } } }
          : l,
      );
    writeRollout(L.rollout(T1), T1, L.cwd, 1, "parent");
    writeFileSync(L.rollout(CHILD), spawned(CHILD, T1).map(jsonl).join(""));
    writeFileSync(L.rollout(GRANDCHILD), spawned(GRANDCHILD, CHILD).map(jsonl).join(""));
    writeRollout(L.rollout(OTHER), OTHER, L.cwd, 1, "other");
    expect(await spawnCodexHook(L, T1).exited).toBe(0);
    // The notified thread first, then the threads spawned under it.
    const keys = [T1, CHILD, GRANDCHILD].flatMap((t) => expectedKeys(`codex:${t}`, linesOf(1)));
    const parent = await readSession(dir.path, captureSession(projectSession(L.cwd), T1));
    expect(keysOf(parent)).toEqual({ keys, duplicates: [] });
    expect(parent.filter((t) => t.meta.isSidechain === true).map((t) => t.meta.agent_id)).toEqual([
      ...Array(linesOf(1)).fill(CHILD),
      ...Array(linesOf(1)).fill(GRANDCHILD),
    ]);
    // An unrelated thread waits for its own notify (or capture sync).
    expect(await readSession(dir.path, captureSession(projectSession(L.cwd), OTHER))).toEqual([]);
    // Run again: nothing more.
    expect(await spawnCodexHook(L, T1).exited).toBe(0);
    expect(keysOf(await readSession(dir.path, captureSession(projectSession(L.cwd), T1)))).toEqual({ keys, duplicates: [] });
  }, 60_000);

  test("the notify hook exits 0 with nothing on stdout and one log line on a bad notification or an unknown thread", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    for (const payload of ["not json", notification("019a0000-9999-7000-8000-000000000009", L.cwd)]) {
      const r = await runZ(["hook", "codex", payload], { home: dir.path, env: codexEnv(L), cwd: L.cwd });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, "", ""]);
    }
    const log = await logLines(dir.path);
    expect(log).toHaveLength(2);
    expect(log[0]).toContain("not JSON");
    expect(log[1]).toContain("no rollout of thread 019a0000-9999");
  }, 60_000);

  test("20 notify hooks killed with SIGKILL, then capture sync: no duplicate, no gap", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    const turns = 1000;
    writeRollout(L.rollout(T1), T1, L.cwd, turns, "kill");
    let killed = 0;
    for (let i = 0; i < 200 && killed < 20; i++) {
      const proc = spawnCodexHook(L, T1);
      // The delay is the kill point inside a run, not a wait for a condition.
      await Bun.sleep(10 + ((i * 7) % 60));
      proc.kill("SIGKILL");
      await proc.exited;
      if (proc.signalCode === "SIGKILL") killed++;
    }
    expect(killed).toBe(20);
    const env = { CODEX_HOME: L.codexHome, CLAUDE_CONFIG_DIR: `${dir.path}/no-claude` };
    const sync = await runJson(["capture", "sync"], { home: dir.path, env });
    expect(sync.warnings).toEqual([]);
    expect(sync.appended).toBeGreaterThan(0);
    const stored = await readSession(dir.path, captureSession(projectSession(L.cwd), T1));
    expect(keysOf(stored)).toEqual({ keys: expectedKeys(`codex:${T1}`, linesOf(turns)), duplicates: [] });
  }, 180_000);

  test("notify hooks racing on a growing rollout (and a line cut mid-write) never store a line twice or skip one", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    const all = rolloutLines(T1, L.cwd, 60, "race");
    let written = 0;
    for (let round = 0; written < all.length; round++) {
      const next = Math.min(all.length, written + 40 + round * 7);
      const text = all.slice(written, next).map(jsonl).join("");
      // The last line of a round is cut mid-write: its rest comes with the next round.
      const cut = next < all.length ? text.length - 5 : text.length;
      appendFileSync(L.rollout(T1), text.slice(0, cut));
      const procs = [0, 1, 2].map(() => spawnCodexHook(L, T1));
      expect(await Promise.all(procs.map((p) => p.exited))).toEqual([0, 0, 0]);
      appendFileSync(L.rollout(T1), text.slice(cut));
      written = next;
    }
    const last = spawnCodexHook(L, T1);
    expect(await last.exited).toBe(0);
    const stored = await readSession(dir.path, captureSession(projectSession(L.cwd), T1));
    expect(keysOf(stored)).toEqual({ keys: expectedKeys(`codex:${T1}`, all.length), duplicates: [] });
    expect(await logLines(dir.path)).toEqual([]);
  }, 120_000);

  test("a 9 MiB tool output is chunked, a line with bytes that are not UTF-8 is kept, and a secret in a command is redacted", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    const lines = rolloutLines(T2, L.cwd, 1).slice(0, 4);
    const big = "x".repeat(9 * 1024 * 1024);
    const head = Buffer.from(lines.map(jsonl).join(""));
    const out = Buffer.from(jsonl({ timestamp: "t", ordinal: 4, type: "response_item", payload: { type: "function_call_output", call_id: "c", output: big } }));
    const bad = Buffer.concat([
      Buffer.from('{"timestamp":"t","ordinal":5,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"caf'),
      Buffer.from([0xe9, 0xff]),
      Buffer.from('"}]}}\n'),
    ]);
    const secret = Buffer.from(
      jsonl({
        timestamp: "t",
        ordinal: 6,
        type: "response_item",
        payload: {
          type: "function_call",
          name: "exec_command",
          arguments: JSON.stringify({ cmd: "export AWS_ACCESS_KEY_ID=AKIAZQ3XK7PLM2RT9WVB" }),
          call_id: "d",
        },
      }),
    );
    writeFileSync(L.rollout(T2), Buffer.concat([head, out, bad, secret]));
    const sync = await runJson(["capture", "sync"], { home: dir.path, env: { CODEX_HOME: L.codexHome } });
    expect(sync.warnings).toEqual([]);
    const turns = await readSession(dir.path, captureSession(projectSession(L.cwd), T2));
    const chunks = turns.filter((t) => t.idem_key?.startsWith(`codex:${T2}:4:`));
    expect(chunks.length).toBe(4);
    expect(chunks.map((c) => c.content).join("")).toBe(`[tool_result]\n${big}`);
    expect(turns.find((t) => t.idem_key === `codex:${T2}:5:0`)?.content).toBe("caf\ufffd\ufffd");
    const call = turns.find((t) => t.idem_key === `codex:${T2}:6:0`)!;
    expect(call.content).not.toContain("AKIAZQ3XK7PLM2RT9WVB");
    expect(call.meta.redacted).toBeGreaterThan(0);
  }, 120_000);
});
