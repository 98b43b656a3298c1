/**
 * The real Claude Code runs the hook (HARNESSES.md "Running a real Claude
 * Code session offline"): `claude -p` against a scripted Messages API on
 * 127.0.0.1, its hooks pointing at the built binary. What it wrote to its
 * own transcript must end up in the store, mapped and redacted.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { harnessBin } from "../harness/_clis.ts";
import { tempDir } from "../helpers.ts";
import { ZERODB, logLines, readSession, runJson, scriptedMessagesApi } from "./_fixtures.ts";

const AWS = "AKIAQX7ZK2MNB4VC6LPD";

/** A Messages API that asks for one Bash call, then answers "All done." */
function fakeApi() {
  return scriptedMessagesApi((body) => {
    const last = body.messages[body.messages.length - 1]!.content;
    const answered = Array.isArray(last) && last.some((b) => (b as { type?: string }).type === "tool_result");
    if (answered || !body.tools?.length) return [{ text: "All done." }];
    return [{ text: "Let me run it." }, { tool: "Bash", input: { command: "echo hello-from-tool", description: "say hello" } }];
  });
}

test("a real claude -p session is captured by its hooks: prompt, tool call, tool result and reply, secrets redacted", async () => {
  const claude = await harnessBin("claude");
  if (!claude) return; // harnessBin said why
  using dir = tempDir();
  using api = fakeApi();
  const configDir = join(dir.path, "claude-config");
  const cwd = join(dir.path, "project");
  mkdirSync(configDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const hook = { hooks: [{ type: "command", command: `${ZERODB} hook claude-code`, timeout: 30 }] };
  const events = ["SessionStart", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "SessionEnd"];
  writeFileSync(join(configDir, "settings.json"), JSON.stringify({ hooks: Object.fromEntries(events.map((e) => [e, [hook]])) }));
  const proc = Bun.spawn([claude, "-p", `run echo please; my key is ${AWS}`, "--allowedTools", "Bash"], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: dir.path,
      ZERODB_HOME: join(dir.path, "zerodb"),
      CLAUDE_CONFIG_DIR: configDir,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.port}`,
      ANTHROPIC_API_KEY: "offline-test-key",
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, stdout: stdout.trim() }).toEqual({ code: 0, stdout: "All done." });
  expect(stderr).not.toContain("hook");

  const sessions = (await runJson(["sessions"], { home: dir.path })).sessions.map((s: { name: string }) => s.name);
  expect(sessions.length).toBe(1);
  expect(sessions[0]).toMatch(/^project-[0-9a-f]{8}\/[0-9a-f]{16}$/);
  const turns = await readSession(dir.path, sessions[0]);
  const find = (role: string, pred: (c: string) => boolean) => turns.find((t) => t.role === role && pred(t.content));
  expect(find("user", (c) => c.startsWith("run echo please"))?.content).toBe("run echo please; my key is [redacted:aws_access_key]");
  expect(find("assistant", (c) => c.startsWith("[tool_use Bash]"))?.meta.tools).toEqual(["Bash"]);
  expect(find("tool", (c) => c.includes("hello-from-tool"))?.content).toBe("[tool_result]\nhello-from-tool");
  expect(find("assistant", (c) => c === "All done.")).toBeDefined();
  for (const t of turns) expect(t.content).not.toContain(AWS);
  // Keys are the transcript's positions, each once; the hooks kept up with the whole transcript.
  const positions = turns.map((t) => t.meta.position as number);
  expect(positions).toEqual(positions.map((_, i) => i));
  const status = await runJson(["capture", "status"], { home: dir.path, env: { CLAUDE_CONFIG_DIR: configDir } });
  expect(status.sessions.length).toBe(1);
  expect(status.sessions[0].lines_captured).toBe(turns.length);
  expect(status.sessions[0].lines_behind).toBe(0);
  const project = sessions[0].split("/")[0];
  expect((await runJson(["fact", "get", `project/${project}/latest-capture`], { home: dir.path })).value.session).toBe(sessions[0]);
  expect(await logLines(dir.path)).toEqual([]);
}, 120_000);
