/**
 * Gemini CLI capture (DESIGN.md 14): chats (fixtures written from
 * HARNESSES.md and Gemini's recording service, see _gemini.ts) captured by
 * the hook and `capture sync`, exactly once; a rewind stored as a marked
 * note with nothing lost; `$set` history as bookkeeping; a resume's second
 * file under the same capture session; whole-file `.json` chats; subagents
 * marked; the same project session as Claude Code's and Codex's.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captureSession, projectSession } from "../../src/project.ts";
import { tempDir } from "../helpers.ts";
import { codexLayout, writeRollout } from "./_codex.ts";
import { appendLines, keysOf, logLines, readSession, runJson, sessionNames } from "./_fixtures.ts";
import { chatHead, geminiLayout, hookInput, msg, spawnGeminiHook } from "./_gemini.ts";

const SID = "5e550000-aaaa-4000-8000-000000000001";
const FILE = "session-2026-11-30T10-00-5e550000.jsonl";

describe("Gemini CLI capture", () => {
  test("the hook captures a chat exactly once; a rewind is a marked note and nothing stored is lost; $set is bookkeeping", async () => {
    using dir = tempDir();
    const L = geminiLayout(dir.path);
    const chat = L.chat(FILE);
    appendLines(chat, [
      chatHead(SID),
      msg.user("u1", "first question"),
      msg.gemini("g1", ""),
      msg.tool("g1", "c1", "file-a file-b"),
      msg.gemini("g2", "first answer"),
    ]);
    const run = async (event: string) => {
      const p = spawnGeminiHook(L, hookInput(L, event, SID, chat));
      const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
      expect([code, out, err]).toEqual([0, "", ""]);
    };
    await run("AfterAgent");
    await run("AfterAgent");
    // The user rewinds to before u2's answer and asks again; then a resume re-appends the kept history.
    appendLines(chat, [
      msg.user("u2", "second question"),
      msg.gemini("g3", "answer to be rewound"),
      { $rewindTo: "u2" },
      msg.user("u3", "second question, asked again"),
      { $set: { messages: [msg.user("u1", "first question"), msg.gemini("g2", "first answer"), msg.user("u3", "second question, asked again")] } },
      { $set: { lastUpdated: "2026-11-30T10:05:00.000Z", summary: "a summary" } },
      msg.info("i1", "Switched model"),
    ]);
    await run("SessionEnd");
    const session = captureSession(projectSession(L.cwd), SID);
    const turns = await readSession(dir.path, session);
    const key = `gemini:app/${FILE}`;
    expect(keysOf(turns)).toEqual({ keys: Array.from({ length: 12 }, (_, i) => `${key}:${i}:0`), duplicates: [] });
    expect(turns.map((t: any) => [t.role, t.meta.kind, t.meta.noise ?? null])).toEqual([
      ["note", "system", "bookkeeping"],
      ["user", "prompt", null],
      ["assistant", "reply", null],
      ["assistant", "tool_call", null],
      ["assistant", "reply", null],
      ["user", "prompt", null],
      ["assistant", "reply", null],
      ["note", "system", "bookkeeping"],
      ["user", "prompt", null],
      ["note", "system", "bookkeeping"],
      ["note", "system", "bookkeeping"],
      ["system", "system", "bookkeeping"],
    ]);
    expect(turns[3]!.content).toBe('[thinking]\nListing: look at the files\n\n[tool_use run_shell_command]\n{"command":"ls"}\n\n[tool_result]\nfile-a file-b');
    expect(turns[3]!.meta).toMatchObject({ message_id: "g1", tools: ["run_shell_command"], tool_use_ids: ["c1"] });
    // The rewound turns stay; the note after them says from which message on they left the history.
    expect(turns[6]!.content).toBe("answer to be rewound");
    expect(turns[7]!.meta).toMatchObject({ type: "$rewindTo", rewind_to: "u2" });
    expect(turns[9]!.meta).toMatchObject({ type: "$set", keys: ["messages"], messages: 3 });
    expect(await logLines(dir.path)).toEqual([]);
    // capture sync has nothing left; status lists the chat.
    const sync = await runJson(["capture", "sync"], { home: dir.path, env: { CODEX_HOME: join(dir.path, "none") } });
    expect(sync).toMatchObject({ appended: 0, warnings: [] });
    const status = await runJson(["capture", "status"], { home: dir.path, env: { CODEX_HOME: join(dir.path, "none") } });
    expect(status.sessions).toEqual([{ source: key, harness: "gemini", capture_session: session, transcript: chat, lines_captured: 12, lines_behind: 0 }]);
  }, 60_000);

  test("capture sync: a resume's second file, a subagent's chat and a whole-file .json chat; one project session with Codex", async () => {
    using dir = tempDir();
    const L = geminiLayout(dir.path);
    appendLines(L.chat(FILE), [chatHead(SID), msg.user("u1", "monday"), msg.gemini("g1", "ok")]);
    const second = "session-2026-11-30T10-07-5e550000.jsonl";
    appendLines(L.chat(second), [chatHead(SID), msg.user("u2", "resumed")]);
    mkdirSync(join(L.chats, SID));
    appendLines(join(L.chats, SID, "sub-1.jsonl"), [{ ...chatHead("sub-1"), kind: "subagent" }, msg.user("s1", "subagent task")]);
    const old = "session-2025-01-01T09-00-0ld00000.json";
    writeFileSync(
      L.chat(old),
      JSON.stringify({ ...chatHead("0ld00000-0000"), messages: [msg.user("o1", "old question"), msg.gemini("o2", "old answer")] }, null, 2),
    );
    // Codex worked in the same directory.
    const C = codexLayout(dir.path);
    const thread = "019a0000-3333-7000-8000-000000000003";
    writeRollout(C.rollout(thread), thread, L.cwd, 1);
    const env = { CODEX_HOME: C.codexHome };
    const sync = await runJson(["capture", "sync"], { home: dir.path, env });
    expect(sync).toMatchObject({ transcripts: 5, skipped: 0, warnings: [] });
    expect((await runJson(["capture", "sync"], { home: dir.path, env })).appended).toBe(0);
    const project = projectSession(L.cwd);
    const main = await readSession(dir.path, captureSession(project, SID));
    expect(main.map((t: any) => [t.idem_key, t.meta.isSidechain ?? false])).toEqual([
      [`gemini:app/${FILE}:0:0`, false],
      [`gemini:app/${FILE}:1:0`, false],
      [`gemini:app/${FILE}:2:0`, false],
      [`gemini:app/${second}:0:0`, false],
      [`gemini:app/${second}:1:0`, false],
      [`gemini:app/${SID}/sub-1.jsonl:0:0`, true],
      [`gemini:app/${SID}/sub-1.jsonl:1:0`, true],
    ]);
    const olds = await readSession(dir.path, captureSession(project, "0ld00000-0000"));
    expect(olds.map((t: any) => t.content)).toEqual([expect.stringContaining('"sessionId":"0ld00000-0000"'), "old question", "old answer"]);
    // A message added to the .json chat (Gemini rewrote the file) is captured; the rest is not again.
    writeFileSync(
      L.chat(old),
      JSON.stringify({ ...chatHead("0ld00000-0000"), messages: [msg.user("o1", "old question"), msg.gemini("o2", "old answer"), msg.user("o3", "one more")] }),
    );
    expect((await runJson(["capture", "sync"], { home: dir.path, env })).appended).toBe(1);
    const names = (await sessionNames(dir.path)).filter((n) => n.includes("/"));
    expect(names.every((n) => n.startsWith(`${project}/`))).toBe(true);
    expect(names).toHaveLength(3);
  }, 60_000);

  test("a message Gemini writes again with the same id: an unchanged copy is kept but left out of search, a grown one stores what was added; the same whether read in one run or across runs", async () => {
    using dir = tempDir();
    const L = geminiLayout(dir.path);
    const chat = L.chat(FILE);
    const tokens = { input: 10, output: 5, cached: 0, thoughts: 0, tool: 0, total: 15 };
    const call = { id: "c1", name: "run_shell_command", args: { command: "grep -r zanzibar etc" }, status: "executing", timestamp: "2026-11-30T10:00:00.000Z" };
    const result = [{ functionResponse: { id: "c1", name: "run_shell_command", response: { output: "etc/app.conf: wombat=on" } } }];
    // As Gemini's chat recording writes them: recordMessage, recordMessageTokens, then recordToolCalls twice (scheduled, then done).
    const g1 = msg.gemini("g1", "I will search for the quokka setting.");
    appendLines(chat, [chatHead(SID), msg.user("u1", "where is the zanzibar setting?"), g1]);
    const run = async () => {
      const p = spawnGeminiHook(L, hookInput(L, "AfterAgent", SID, chat));
      expect(await p.exited).toBe(0);
    };
    await run();
    appendLines(chat, [
      { ...g1, tokens },
      { ...g1, tokens, toolCalls: [call] },
      { ...g1, tokens, toolCalls: [{ ...call, status: "success", result }] },
      msg.gemini("g2", "It is set in etc/app.conf."),
    ]);
    await run();
    const session = captureSession(projectSession(L.cwd), SID);
    const turns = await readSession(dir.path, session);
    const key = `gemini:app/${FILE}`;
    expect(keysOf(turns)).toEqual({ keys: Array.from({ length: 7 }, (_, i) => `${key}:${i}:0`), duplicates: [] });
    const view = turns.map((t) => [t.meta.message_id ?? null, t.meta.rewrite ?? null, t.meta.kind, t.meta.noise ?? null, t.content]);
    expect(view.slice(2)).toEqual([
      ["g1", null, "reply", null, "I will search for the quokka setting."],
      ["g1", "same", "reply", "rewrite", "I will search for the quokka setting."],
      ["g1", "added", "tool_call", null, '[tool_use run_shell_command]\n{"command":"grep -r zanzibar etc"}'],
      ["g1", "added", "tool_call", null, "[tool_result]\netc/app.conf: wombat=on"],
      ["g2", null, "reply", null, "It is set in etc/app.conf."],
    ]);
    // Search finds each part of the message once.
    for (const [query, at] of [
      ["quokka", 2],
      ["grep", 4],
      ["wombat", 5],
    ] as const) {
      const { hits } = await runJson(["search", query, "--session", session], { home: dir.path });
      expect([query, hits.map((h: any) => turns.findIndex((t) => t.lsn === h.lsn))]).toEqual([query, [at]]);
    }
    // capture sync into another store reads the chat in one run: the same turns.
    using other = tempDir();
    const env = { CODEX_HOME: join(dir.path, "none"), HOME: dir.path };
    const sync = await runJson(["capture", "sync"], { home: other.path, env: { ...env, ZERODB_HOME: join(other.path, "zerodb") } });
    expect(sync).toMatchObject({ appended: 7, warnings: [] });
    const again = await readSession(other.path, session);
    expect(again.map((t) => [t.idem_key, t.content, t.meta.rewrite ?? null, t.meta.noise ?? null])).toEqual(
      turns.map((t) => [t.idem_key, t.content, t.meta.rewrite ?? null, t.meta.noise ?? null]),
    );
  }, 60_000);

  test("the hook never fails Gemini: bad input, a path that is not a chat, no transcript: exit 0, nothing on stdout", async () => {
    using dir = tempDir();
    const L = geminiLayout(dir.path);
    for (const stdin of ["{", hookInput(L, "AfterAgent", SID, join(dir.path, "elsewhere.txt")), hookInput(L, "SessionStart", SID, "")]) {
      const p = spawnGeminiHook(L, stdin);
      expect([await p.exited, await new Response(p.stdout).text()]).toEqual([0, ""]);
    }
    const log = await logLines(dir.path);
    expect(log).toHaveLength(2);
    expect(log[0]).toContain("not JSON");
    expect(log[1]).toContain("not a Gemini CLI chat");
  }, 60_000);
});
