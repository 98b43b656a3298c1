/**
 * The real harness CLIs accept what connect wrote (HARNESSES.md, "Checking
 * a registration with the harness itself"), in a temporary HOME whose
 * configs already hold other servers, comments and settings. Each test
 * skips with a message when its CLI cannot be installed.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { harnessBin } from "./_clis.ts";
import { ZERODB, runJson, tempDir } from "../helpers.ts";
import { USER_FILES, writeUserFiles } from "./_fixtures.ts";

// Other servers point at commands that do not exist: they fail at once and nothing reaches the network.
const FILES = {
  ...USER_FILES,
  ".claude.json": USER_FILES[".claude.json"]!.replace(`"command": "npx"`, `"command": "/nonexistent/github-mcp"`),
};

/** Runs a harness CLI with nothing of this machine's environment but PATH and the temporary HOME. */
async function runHarness(cmd: string[], opts: { home: string; cwd: string; env?: Record<string, string> }): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn(cmd, {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: opts.home, ...opts.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 120_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out: stdout + stderr };
}

/** A HOME with the user's files and zerodb connected to `harness`; returns the project dir to run in. */
async function connected(home: string, harness: string): Promise<string> {
  writeUserFiles(home, FILES);
  const project = join(home, "project");
  mkdirSync(project);
  const r = await runJson<{ results: { status: string }[] }>(["connect", "--harness", harness], { home });
  expect(r.results.map((o) => o.status)).toEqual(["added"]);
  return project;
}

test("Claude Code: `claude mcp list` shows zerodb connected", async () => {
  const claude = await harnessBin("claude");
  if (!claude) return console.warn("skipping: Claude Code CLI unavailable");
  using home = tempDir();
  const project = await connected(home.path, "claude-code");
  const r = await runHarness([claude, "mcp", "list"], {
    home: home.path,
    cwd: project,
    env: { DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", MCP_TIMEOUT: "60000" },
  });
  expect(r.out).toContain(`zerodb: ${ZERODB} mcp - ✔ Connected`);
  // The user's server is still registered (and fails, as its command does not exist).
  expect(r.out).toContain("github: /nonexistent/github-mcp");
});

test("Gemini CLI: `gemini mcp list` shows zerodb connected in a trusted folder", async () => {
  const gemini = await harnessBin("gemini");
  if (!gemini) return console.warn("skipping: Gemini CLI unavailable");
  using home = tempDir();
  const project = await connected(home.path, "gemini");
  writeFileSync(join(home.path, ".gemini", "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
  const r = await runHarness([gemini, "mcp", "list"], { home: home.path, cwd: project });
  expect(r.out).toMatch(new RegExp(`✓ zerodb: ${ZERODB.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} mcp \\(stdio\\) - Connected`));
  expect(r.out).toContain("fs: fs-server");
});

test("Codex: `codex mcp list --json` lists zerodb with the right command, beside the user's server", async () => {
  const codex = await harnessBin("codex");
  if (!codex) return console.warn("skipping: Codex CLI unavailable");
  using home = tempDir();
  const project = await connected(home.path, "codex");
  const r = await runHarness([codex, "mcp", "list", "--json"], { home: home.path, cwd: project });
  expect(r.code).toBe(0);
  const list = JSON.parse(r.out.slice(r.out.indexOf("["), r.out.lastIndexOf("]") + 1)) as {
    name: string;
    transport: { command: string; args: string[]; env: Record<string, string> };
  }[];
  const zerodb = list.find((s) => s.name === "zerodb");
  expect(zerodb?.transport).toMatchObject({ command: ZERODB, args: ["mcp"], env: { ZERODB_MANAGED: "1", ZERODB_HOME: join(home.path, "zerodb") } });
  expect(list.find((s) => s.name === "docs")?.transport).toMatchObject({
    command: "docs-server",
    args: ["--port", "0", "C:\\literal\\path"],
    env: { DOCS_HOME: "/srv/docs" },
  });
});

/** A stand-in for the Anthropic API on 127.0.0.1 that answers every message with one short text (HARNESSES.md). */
function fakeAnthropic(): ReturnType<typeof Bun.serve> {
  const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path.endsWith("/count_tokens")) return Response.json({ input_tokens: 10 });
      if (path !== "/v1/messages") return new Response("not found", { status: 404 });
      const body = (await req.json()) as { model: string; stream?: boolean };
      const msg = {
        id: "msg_test",
        type: "message",
        role: "assistant",
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      };
      const text = "noted";
      if (!body.stream) return Response.json({ ...msg, content: [{ type: "text", text }], stop_reason: "end_turn" });
      const sse = [
        ev("message_start", { type: "message_start", message: msg }),
        ev("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
        ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
        ev("content_block_stop", { type: "content_block_stop", index: 0 }),
        ev("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } }),
        ev("message_stop", { type: "message_stop" }),
      ].join("");
      return new Response(sse, { headers: { "content-type": "text/event-stream" } });
    },
  });
}

test("Claude Code: a real `claude -p` session runs the hooks connect --capture installed, and the prompt lands in the store", async () => {
  const claude = await harnessBin("claude");
  if (!claude) return console.warn("skipping: Claude Code CLI unavailable");
  using home = tempDir();
  mkdirSync(join(home.path, ".claude"));
  const project = join(home.path, "project");
  mkdirSync(project);
  await runJson(["connect", "--capture", "--harness", "claude-code"], { home: home.path });
  await using api = fakeAnthropic();
  const word = `zerodbword${Date.now().toString(36)}`;
  // No ZERODB_HOME here: the hook command pins the home connect used.
  const r = await runHarness([claude, "-p", `remember the word ${word}`], {
    home: home.path,
    cwd: project,
    env: {
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.port}`,
      ANTHROPIC_API_KEY: "test-key-not-real",
    },
  });
  expect(r.out).toContain("noted");
  // The transcript is written asynchronously; SessionEnd's catch-up may still be running: wait for it (bounded).
  let hits: { role: string; session: string }[] = [];
  for (let i = 0; i < 100 && hits.length === 0; i++) {
    hits = (await runJson<{ hits: { role: string; session: string }[] }>(["search", word, "--role", "user"], { home: home.path })).hits;
    if (hits.length === 0) await Bun.sleep(100);
  }
  expect(hits.length).toBeGreaterThan(0);
  expect(hits[0]!.session).toStartWith("project-");
});
