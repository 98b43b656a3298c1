/**
 * A real `opencode run`, offline (a custom OpenAI-compatible provider pointed
 * at a stand-in chat completions API on 127.0.0.1), loads the plugin `zerodb
 * connect --capture` installed; on session.idle the plugin starts the hook,
 * and the prompt, the model's reasoning, its tool call, the tool's output and
 * the reply land in the directory's project session. Skips with a message
 * when opencode cannot be installed.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captureSession, projectSession } from "../../src/project.ts";
import { harnessBin } from "../harness/_clis.ts";
import { runJson, tempDir } from "../helpers.ts";
import { readSession, type StoredTurn } from "./_fixtures.ts";

/**
 * Answers POST /v1/chat/completions as server-sent chunks: a prompt asking
 * for the tool gets reasoning and a `bash` call; everything else (the title
 * request, the turn after the tool) gets "noted the word".
 */
function fakeChat(): ReturnType<typeof Bun.serve> {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "stand-in", choices: [{ index: 0, delta, finish_reason: finish }], ...(finish ? { usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } } : {}) })}\n\n`;
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (!new URL(req.url).pathname.endsWith("/chat/completions")) return new Response("not found", { status: 404 });
      const body = (await req.json()) as { messages: { role: string; content: unknown }[]; tools?: unknown[] };
      const last = body.messages.at(-1)!;
      const wantsTool = last.role === "user" && JSON.stringify(last.content).includes("use the tool") && body.tools !== undefined;
      const parts = wantsTool
        ? [
            chunk({ role: "assistant", content: null, reasoning_content: "the shell will tell" }),
            chunk({
              tool_calls: [
                {
                  index: 0,
                  id: "call_1",
                  type: "function",
                  function: { name: "bash", arguments: JSON.stringify({ command: "echo hi-from-tool", description: "say hi" }) },
                },
              ],
            }),
            chunk({}, "tool_calls"),
          ]
        : [chunk({ role: "assistant", content: "" }), chunk({ content: "noted " }), chunk({ content: "the word" }), chunk({}, "stop")];
      return new Response(`${parts.join("")}data: [DONE]\n\n`, { headers: { "content-type": "text/event-stream" } });
    },
  });
}

test("opencode: a real `opencode run` loads the plugin connect --capture installed; the session lands in the project session", async () => {
  const opencode = await harnessBin("opencode");
  if (!opencode) return console.warn("skipping: opencode unavailable");
  using home = tempDir();
  const configDir = join(home.path, ".config", "opencode");
  mkdirSync(configDir, { recursive: true });
  const project = join(home.path, "project");
  mkdirSync(project);
  const r = await runJson(["connect", "--capture", "--harness", "opencode"], { home: home.path });
  expect(r.results.map((o: { what: string; status: string }) => [o.what, o.status])).toEqual([
    ["mcp", "added"],
    ["hooks", "added"],
    ["config", "added"],
  ]);
  await using api = fakeChat();
  const configPath = join(configDir, "opencode.json");
  const config = JSON.parse(readFileSync(configPath, "utf8"));
  config.provider = {
    local: {
      npm: "@ai-sdk/openai-compatible",
      name: "local",
      options: { baseURL: `http://127.0.0.1:${api.port}/v1`, apiKey: "anything" },
      models: { "stand-in": { name: "stand-in", tool_call: true } },
    },
  };
  config.model = "local/stand-in";
  config.autoupdate = false;
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  // No ZERODB_HOME: the plugin's command pins the home connect used.
  const proc = Bun.spawn([opencode, "run", "please use the tool now"], {
    cwd: project,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home.path, OPENCODE_DISABLE_AUTOUPDATE: "1" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 120_000,
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, out: out.includes("noted the word"), err: code === 0 ? "" : err }).toEqual({ code: 0, out: true, err: "" });
  const db = join(home.path, ".local", "share", "opencode", "opencode.db");
  expect(existsSync(db)).toBe(true);
  // The plugin starts the hook without waiting for it: wait for the condition (the reply stored), bounded.
  let turns: StoredTurn[] = [];
  for (let i = 0; i < 600; i++) {
    const names = (await runJson(["sessions"], { home: home.path })) as { sessions?: { name: string }[] };
    const name = names.sessions?.find((s) => s.name.startsWith(`${projectSession(project)}/`))?.name;
    if (name) {
      turns = await readSession(home.path, name);
      if (turns.some((t) => t.content === "noted the word")) break;
    }
    await Bun.sleep(50);
  }
  const said = turns.filter((t) => t.meta?.kind !== "system").map((t) => [t.role, t.meta.kind, t.content]);
  expect(said).toEqual([
    ["user", "prompt", expect.stringContaining("please use the tool now")],
    ["assistant", "reply", "[reasoning]\nthe shell will tell"],
    ["assistant", "tool_call", expect.stringMatching(/^\[tool_use bash\]\n\{"command":"echo hi-from-tool"/)],
    ["tool", "tool_result", "[tool_result]\nhi-from-tool\n"],
    ["assistant", "reply", "noted the word"],
  ]);
  const sessionId = /^opencode:(ses_[A-Za-z0-9]+):/.exec(turns[0]!.idem_key ?? "")?.[1];
  expect(turns[0]!.session).toBe(captureSession(projectSession(project), sessionId!));
  expect(turns.every((t) => t.meta.harness === "opencode" && t.idem_key?.startsWith(`opencode:${sessionId}:`))).toBe(true);
  // A backfill afterwards finds everything already stored.
  expect(await runJson(["capture", "sync"], { home: home.path })).toMatchObject({ appended: 0, warnings: [] });
  const d = await runJson(["disconnect", "--harness", "opencode"], { home: home.path });
  expect(d.results.find((o: { what: string }) => o.what === "hooks")).toMatchObject({ status: "removed" });
  expect(existsSync(join(configDir, "plugin", "zerodb.js"))).toBe(false);
}, 180_000);
