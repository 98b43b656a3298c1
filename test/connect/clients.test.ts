/**
 * The real harness CLIs accept what connect wrote (HARNESSES.md, "Checking
 * a registration with the harness itself"), in a temporary HOME whose
 * configs already hold other servers, comments and settings. Each test
 * skips with a message when its CLI cannot be installed.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { harnessBin } from "../harness.ts";
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
  const list = JSON.parse(r.out.slice(r.out.indexOf("["), r.out.lastIndexOf("]") + 1)) as { name: string; transport: { command: string; args: string[]; env: Record<string, string> } }[];
  const zerodb = list.find((s) => s.name === "zerodb");
  expect(zerodb?.transport).toMatchObject({ command: ZERODB, args: ["mcp"], env: { ZERODB_MANAGED: "1", ZERODB_HOME: join(home.path, "zerodb") } });
  expect(list.find((s) => s.name === "docs")?.transport).toMatchObject({ command: "docs-server", args: ["--port", "0", "C:\\literal\\path"], env: { DOCS_HOME: "/srv/docs" } });
});
