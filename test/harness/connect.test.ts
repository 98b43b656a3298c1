/**
 * connect / disconnect through the built binary, over real config files in
 * a temporary HOME (DESIGN.md 7.1): unrelated content survives, a second
 * connect changes nothing, disconnect gives every file back as it was,
 * --dry-run writes nothing, CLAUDE_CONFIG_DIR and --capture are honoured,
 * and connect says what it found and what to do next.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ZERODB, runJson, runZ, tempDir } from "../helpers.ts";
import { MCP_FILES, type Report, USER_FILES, fingerprint, listFiles, statusOf, writeUserFiles } from "./_fixtures.ts";

const parseJsonc = (text: string) => JSON.parse(text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "").replace(/,(\s*[}\]])/g, "$1"));

describe("connect into configs already in use", () => {
  test("adds zerodb everywhere and keeps everything else; a second run changes nothing", async () => {
    using home = tempDir();
    writeUserFiles(home.path);
    const r = await runJson<Report>(["connect"], { home: home.path });
    expect(r.command).toBe(ZERODB);
    for (const target of Object.keys(MCP_FILES)) expect(statusOf(r, target)).toBe("added");
    expect(r.results.find((o) => o.target === "claude-desktop")).toMatchObject({ status: "skipped" });

    // Claude Code: the shape `claude mcp add --scope user` writes, plus zerodb's marker and home.
    const claude = JSON.parse(readFileSync(join(home.path, ".claude.json"), "utf8"));
    expect(claude.mcpServers.zerodb).toEqual({
      type: "stdio",
      command: ZERODB,
      args: ["mcp"],
      env: { ZERODB_MANAGED: "1", ZERODB_HOME: join(home.path, "zerodb") },
    });
    expect(claude.mcpServers.github).toEqual(JSON.parse(USER_FILES[".claude.json"]!).mcpServers.github);
    expect(claude.projects).toEqual(JSON.parse(USER_FILES[".claude.json"]!).projects);
    // opencode's own shape.
    const opencode = JSON.parse(readFileSync(join(home.path, MCP_FILES.opencode!), "utf8"));
    expect(opencode.mcp.zerodb).toEqual({
      type: "local",
      command: [ZERODB, "mcp"],
      environment: { ZERODB_MANAGED: "1", ZERODB_HOME: join(home.path, "zerodb") },
      enabled: true,
    });
    expect(opencode.mcp.weather.type).toBe("remote");
    // VS Code: key `servers`, CRLF and comments kept.
    const vscode = readFileSync(join(home.path, MCP_FILES.vscode!), "utf8");
    expect(vscode).toStartWith(`{\r\n  // VS Code user MCP servers\r\n`);
    expect(vscode.replaceAll("\r\n", "")).not.toContain("\n");
    expect(parseJsonc(vscode).servers.zerodb.type).toBe("stdio");
    // Gemini keeps its tabs and both comments.
    const gemini = readFileSync(join(home.path, MCP_FILES.gemini!), "utf8");
    expect(gemini).toContain("\t// Gemini reads comments\n");
    expect(gemini).toContain("/* local files */");
    expect(gemini).toContain(`\t\t"zerodb": {\n\t\t\t"command": `);
    // Codex: every byte of the user's file, then zerodb's tables.
    const codex = readFileSync(join(home.path, MCP_FILES.codex!), "utf8");
    expect(codex.startsWith(USER_FILES[".codex/config.toml"]!)).toBe(true);
    expect(codex).toContain(`[mcp_servers.zerodb]\ncommand = ${JSON.stringify(ZERODB)}\nargs = ["mcp"]\n`);
    // Cursor stays one line.
    expect(readFileSync(join(home.path, MCP_FILES.cursor!), "utf8")).not.toContain("\n");

    // Every file: insertions only, the mode kept, one backup holding the bytes before.
    for (const rel of Object.values(MCP_FILES)) {
      const after = readFileSync(join(home.path, rel), "utf8");
      let i = 0;
      const before = USER_FILES[rel]!;
      for (let j = 0; j < after.length && i < before.length; j++) if (after[j] === before[i]) i++;
      expect(i).toBe(before.length);
      expect(readFileSync(join(home.path, `${rel}.zerodb-backup`), "utf8")).toBe(before);
    }
    expect(statSync(join(home.path, ".claude.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.path, ".claude.json.zerodb-backup")).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.path, MCP_FILES.codex!)).mode & 0o777).toBe(0o640);

    const prints = Object.fromEntries(
      Object.values(MCP_FILES)
        .flatMap((rel) => [rel, `${rel}.zerodb-backup`])
        .map((rel) => [rel, fingerprint(join(home.path, rel))]),
    );
    const files = listFiles(home.path);
    const again = await runJson<Report>(["connect"], { home: home.path });
    for (const target of Object.keys(MCP_FILES)) expect(statusOf(again, target)).toBe("unchanged");
    for (const [rel, print] of Object.entries(prints)) expect(fingerprint(join(home.path, rel))).toEqual(print);
    expect(listFiles(home.path)).toEqual(files);
    expect(files.filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  test("disconnect gives every file back byte for byte", async () => {
    using home = tempDir();
    writeUserFiles(home.path);
    await runJson(["connect", "--capture"], { home: home.path });
    const r = await runJson<Report>(["disconnect"], { home: home.path });
    for (const target of Object.keys(MCP_FILES)) expect(statusOf(r, target)).toBe("removed");
    expect(statusOf(r, "claude-code", "hooks")).toBe("removed");
    for (const [rel, text] of Object.entries(USER_FILES)) expect(readFileSync(join(home.path, rel), "utf8")).toBe(text);
    expect(statSync(join(home.path, ".claude.json")).mode & 0o777).toBe(0o600);
    const again = await runJson<Report>(["disconnect"], { home: home.path });
    expect(again.results.filter((o) => o.status !== "absent").map((o) => o.target)).toEqual(["claude-desktop"]);
  });

  test("files connect created are removed again; nothing else is left behind but backups", async () => {
    using home = tempDir();
    for (const d of [".claude", ".codex", ".gemini", ".cursor"]) mkdirSync(join(home.path, d));
    const r = await runJson<Report>(["connect", "--capture"], { home: home.path });
    expect(r.results.filter((o) => o.status === "added").map((o) => `${o.target}/${o.what}`)).toEqual([
      "claude-code/mcp",
      "codex/mcp",
      "gemini/mcp",
      "cursor/mcp",
      "claude-code/hooks",
      "codex/hooks",
      "gemini/hooks",
      "zerodb/config",
    ]);
    expect(statSync(join(home.path, ".claude.json")).mode & 0o777).toBe(0o600);
    await runJson(["disconnect"], { home: home.path });
    for (const rel of [".claude.json", ".claude/settings.json", ".codex/config.toml", ".gemini/settings.json", ".cursor/mcp.json"]) {
      expect(existsSync(join(home.path, rel))).toBe(false);
      expect(existsSync(join(home.path, `${rel}.zerodb-backup`))).toBe(true);
    }
  });

  test("--dry-run prints the diff and writes nothing", async () => {
    using home = tempDir();
    writeUserFiles(home.path);
    const before = listFiles(home.path);
    const r = await runZ(["connect", "--dry-run", "--capture"], { home: home.path });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(`--- ${join(home.path, ".claude.json")}`);
    expect(r.stdout).toContain(`+    "zerodb": {`);
    expect(r.stdout).toContain("+[mcp_servers.zerodb]");
    expect(r.stdout).toContain(`${ZERODB} hook claude-code`);
    expect(r.stdout).toContain("dry run: nothing was written");
    expect(listFiles(home.path)).toEqual(before);
    for (const [rel, text] of Object.entries(USER_FILES)) expect(readFileSync(join(home.path, rel), "utf8")).toBe(text);
    const json = await runJson<Report>(["connect", "--dry-run"], { home: home.path });
    expect(json.dry_run).toBe(true);
    expect(json.results.find((o) => o.target === "codex")?.diff).toContain('+ZERODB_MANAGED = "1"');
  });
});

describe("CLAUDE_CONFIG_DIR", () => {
  test("a relative one is resolved against the working directory: connect writes there and capture reads there", async () => {
    using home = tempDir();
    const cwd = join(home.path, "project");
    mkdirSync(join(cwd, "cfg"), { recursive: true });
    const env = { CLAUDE_CONFIG_DIR: "cfg" };
    const json = await runJson<Report>(["connect", "--capture", "--harness", "claude-code"], { home: home.path, cwd, env });
    expect(json.results.filter((o) => o.target === "claude-code").map((o) => [o.what, o.status, o.path])).toEqual([
      ["mcp", "added", join(cwd, "cfg", ".claude.json")],
      ["hooks", "added", join(cwd, "cfg", "settings.json")],
    ]);
    expect(existsSync(join(cwd, "cfg", "settings.json"))).toBe(true);
    const slug = join(cwd, "cfg", "projects", "-p");
    mkdirSync(slug, { recursive: true });
    writeFileSync(join(slug, "11111111-1111-4111-8111-111111111111.jsonl"), "");
    const status = await runZ(["capture", "status", "--json"], { home: home.path, cwd, env });
    expect(status.stdout).toContain("11111111-1111-4111-8111-111111111111");
  });
});
describe("--capture", () => {
  test("installs the six hooks beside the user's, turns capture on, and is idempotent", async () => {
    using home = tempDir();
    writeUserFiles(home.path);
    const r = await runJson<Report>(["connect", "--capture", "--harness", "claude-code"], { home: home.path });
    expect(statusOf(r, "claude-code", "hooks")).toBe("added");
    expect(statusOf(r, "zerodb", "config")).toBe("added");
    const settings = JSON.parse(readFileSync(join(home.path, ".claude/settings.json"), "utf8"));
    const hook = `ZERODB_HOME=${join(home.path, "zerodb")} ${ZERODB} hook claude-code`;
    for (const event of ["SessionStart", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "SessionEnd"]) {
      expect(settings.hooks[event].at(-1).hooks).toEqual([{ type: "command", command: hook, timeout: expect.any(Number) }]);
    }
    expect(settings.hooks.Stop[0].hooks[0].command).toBe("notify-send 'claude is done'");
    expect(settings.cleanupPeriodDays).toBe(45);
    const config = join(home.path, "zerodb", "config.json");
    expect(JSON.parse(readFileSync(config, "utf8"))).toEqual({ capture: { enabled: true } });
    expect(statSync(config).mode & 0o777).toBe(0o600);
    const print = fingerprint(join(home.path, ".claude/settings.json"));
    const again = await runJson<Report>(["connect", "--capture", "--harness", "claude-code"], { home: home.path });
    expect(again.results.map((o) => o.status)).toEqual(["unchanged", "unchanged", "unchanged"]);
    expect(fingerprint(join(home.path, ".claude/settings.json"))).toEqual(print);
    // Capture on: a plain connect keeps the hooks current too.
    const plain = await runJson<Report>(["connect", "--harness", "claude-code"], { home: home.path });
    expect(statusOf(plain, "claude-code", "hooks")).toBe("unchanged");
    const off = await runJson<Report>(["disconnect", "--harness", "claude-code"], { home: home.path });
    expect(statusOf(off, "zerodb", "config")).toBe("updated");
    expect(readFileSync(join(home.path, ".claude/settings.json"), "utf8")).toBe(USER_FILES[".claude/settings.json"]!);
    expect(JSON.parse(readFileSync(config, "utf8"))).toEqual({ capture: { enabled: false } });
  });
});

test("issue 17 item 7: with no harness installed, connect names what it looked for, how it decided and to run it again after installing one", async () => {
  using home = tempDir();
  const r = await runZ(["connect"], { home: home.path, env: { PATH: "/nonexistent" } });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  const tail = r.stdout.trim().split("\n").slice(-4);
  expect(tail[0]).toBe("no agent harness found for this user. Looked for: Claude Code, Codex, Gemini CLI, Cursor, VS Code, Windsurf, opencode, Claude Desktop");
  expect(tail[1]).toContain("config folder exists");
  expect(tail[2]).toContain("then run zerodb connect again");
  expect(tail[3]).toContain("--harness NAME");
  expect(r.stdout).not.toContain("restart");
});

test("issue 17 item 7: after connect writes a registration it says to restart running harnesses; not when nothing changed or on a dry run", async () => {
  using home = tempDir();
  mkdirSync(join(home.path, ".gemini"));
  const env = { PATH: "/nonexistent" };
  const first = await runZ(["connect"], { home: home.path, env });
  expect(first.code).toBe(0);
  expect(first.stdout).toContain("restart Gemini CLI if running: a harness reads its MCP servers when it starts.");
  expect(first.stdout).toContain("Run zerodb connect again");
  const again = await runZ(["connect"], { home: home.path, env });
  expect(again.stdout).not.toContain("restart");
  const dry = await runZ(["connect", "--dry-run", "--harness", "cursor"], { home: home.path, env });
  expect(dry.stdout).not.toContain("restart");
});

test("a server named on the command line is registered as flags; a token only by its file's path", async () => {
  using home = tempDir();
  writeFileSync(join(home.path, "tok"), "secret-token-value", { mode: 0o600 });
  await runJson(["connect", "--harness", "cursor", "--url", "http://127.0.0.1:7077", "--tenant", "team", "--token-file", "tok"], { home: home.path });
  const text = readFileSync(join(home.path, ".cursor/mcp.json"), "utf8");
  expect(JSON.parse(text).mcpServers.zerodb.args).toEqual([
    "mcp",
    "--url",
    "http://127.0.0.1:7077",
    "--tenant",
    "team",
    "--token-file",
    join(home.path, "tok"),
  ]);
  expect(text).not.toContain("secret-token-value");
});
