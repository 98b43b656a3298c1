/**
 * Gemini CLI capture (DESIGN.md 14): chats (fixtures written from
 * HARNESSES.md and Gemini's recording service, see _gemini.ts) captured by
 * the hook and `capture sync`, exactly once; a rewind stored as a marked
 * note with nothing lost; `$set` history as bookkeeping; a resume's second
 * file under the same capture session; whole-file `.json` chats; subagents
 * marked; the same project session as Claude Code's and Codex's; a long
 * tool output whole, from `resultDisplay`, not the model's cut copy.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderGeminiLine } from "../../src/capture/render-gemini.ts";
import { captureSession, projectSession } from "../../src/project.ts";
import { tempDir } from "../helpers.ts";
import { codexLayout, writeRollout } from "./_codex.ts";
import { appendLines, keysOf, logLines, readSession, runJson, sessionNames } from "./_fixtures.ts";
import { chatHead, cutOutput, geminiLayout, hookInput, msg, spawnGeminiHook } from "./_gemini.ts";

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

  test("issue 29 (8): a long shell output is stored whole from resultDisplay, the cut copy's head and tail not twice; a file diff display adds nothing", async () => {
    using dir = tempDir();
    const L = geminiLayout(dir.path);
    const chat = L.chat(FILE);
    // A 200 KB build log; the line that matters sits in the middle, in what the cut copy leaves out.
    const log = Array.from({ length: 3000 }, (_, i) =>
      i === 1500
        ? "src/net/socket.c:88: error: undefined reference to quasarflux_init"
        : `[${String(Math.floor(i / 30)).padStart(3)}%] step ${String(i).padStart(4, "0")}: cc -O2 -Wall -c src/mod_${i}.c -o build/mod_${i}.o`,
    ).join("\n");
    const cut = cutOutput(log, 2);
    expect([log.length > 200_000, cut.length < 41_000, cut.includes("quasarflux")]).toEqual([true, true, false]);
    const diff = {
      fileDiff: "--- a.c\n+++ a.c\n@@ -1 +1 @@\n-old\n+new\n",
      fileName: "a.c",
      filePath: join(L.cwd, "a.c"),
      originalContent: "old\n",
      newContent: "new\n",
      isNewFile: false,
    };
    const replace = {
      id: "c2",
      name: "replace",
      args: { file_path: "a.c", old_string: "old", new_string: "new" },
      status: "success",
      timestamp: "2026-11-30T10:00:00.000Z",
    };
    const edit = {
      ...replace,
      result: [{ functionResponse: { id: "c2", name: "replace", response: { output: "Successfully modified file: a.c (1 replacements)." } } }],
      resultDisplay: diff,
    };
    appendLines(chat, [chatHead(SID), msg.user("u1", "why does the build fail?"), msg.shell("g1", "c1", "make all", cut, log, [edit])]);
    const p = spawnGeminiHook(L, hookInput(L, "AfterAgent", SID, chat));
    expect(await p.exited).toBe(0);
    const session = captureSession(projectSession(L.cwd), SID);
    const turns = await readSession(dir.path, session);
    expect(turns).toHaveLength(3);
    const call = turns[2]!;
    expect(call.content).toBe(
      [
        '[tool_use run_shell_command]\n{"command":"make all"}\n',
        `[tool_result]\n${log}\n\n[given to the model, besides the output above]`,
        "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /home/u/.gemini/tmp/app/tool-outputs/run_shell_command_c1.txt",
        "<untrusted_context>",
        "Output:",
        /\.\.\. \[[\d,]+ characters omitted\] \.\.\./.exec(cut)?.[0],
        "Exit Code: 2",
        "Process Group PGID: 4242",
        "</untrusted_context>",
        `\n[tool_use replace]\n${JSON.stringify(replace.args)}`,
        "\n[tool_result]\nSuccessfully modified file: a.c (1 replacements).",
      ].join("\n"),
    );
    // A line of the cut copy's head and one of its tail: each stored once.
    expect(["step 0005:", "step 2990:"].map((l) => call.content.split(l).length - 1)).toEqual([1, 1]);
    expect(call.meta).toMatchObject({ message_id: "g1", kind: "tool_call", whole_output: true });
    const { hits } = await runJson(["search", "quasarflux", "--session", session], { home: dir.path });
    expect(hits.map((h: any) => h.lsn)).toEqual([call.lsn]);
  }, 60_000);

  test("a terminal-rendered resultDisplay (lines of styled tokens) is read as its text; other shapes leave the output as the model got it", () => {
    const token = (text: string) => ({
      text,
      bold: false,
      italic: false,
      underline: false,
      dim: false,
      inverse: false,
      isUninitialized: false,
      fg: "",
      bg: "",
    });
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i} of a colourful test run, all green`);
    const ansi = [...lines.map((l) => [token(l.slice(0, 5)), token(`${l.slice(5)}   `)]), [token("")]];
    const output = `Output: ${lines[0]}\n... [900 characters omitted] ...\n${lines[49]}`;
    const render = (resultDisplay: unknown) =>
      renderGeminiLine(JSON.stringify(msg.shell("g1", "c1", "npm test", output, resultDisplay))).content.split("[tool_result]\n")[1];
    expect(render(ansi)).toBe(`${lines.join("\n")}\n\n[given to the model, besides the output above]\nOutput:\n... [900 characters omitted] ...`);
    for (const other of [{ todos: [{ description: "x".repeat(500), status: "pending" }] }, [["not tokens"]], "short", null]) expect(render(other)).toBe(output);
  });

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
