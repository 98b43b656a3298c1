/**
 * connect / disconnect through the built binary, over real config files in
 * a temporary HOME (DESIGN.md 7.1): unrelated content survives, a second
 * connect changes nothing, disconnect gives every file back as it was,
 * writes are atomic with one backup, malformed files are left alone.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ZERODB, runJson, runZ, tempDir } from "../helpers.ts";
import { MCP_FILES, USER_FILES, fingerprint, listFiles, writeUserFiles } from "./_fixtures.ts";

type Outcome = { target: string; what: string; label: string; status: string; path?: string; detail?: string; diff?: string };
type Report = { dry_run: boolean; command: string; results: Outcome[] };

const statusOf = (r: Report, target: string, what = "mcp") => r.results.find((o) => o.target === target && o.what === what)?.status;
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

describe("what connect refuses or leaves alone", () => {
  test("a malformed file is reported and left untouched; the others are still connected", async () => {
    using home = tempDir();
    writeUserFiles(home.path, { ...USER_FILES, ".claude.json": `{"mcpServers": {"github": {}},` });
    const r = await runZ(["connect", "--json"], { home: home.path });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    const claude = report.results.find((o) => o.target === "claude-code")!;
    expect(claude.status).toBe("failed");
    expect(claude.detail).toContain(join(home.path, ".claude.json"));
    expect(claude.detail).toContain("malformed");
    expect(claude.detail).toContain("left untouched");
    expect(readFileSync(join(home.path, ".claude.json"), "utf8")).toBe(`{"mcpServers": {"github": {}},`);
    expect(existsSync(join(home.path, ".claude.json.zerodb-backup"))).toBe(false);
    expect(statusOf(report, "codex")).toBe("added");
    const human = await runZ(["connect"], { home: home.path });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/Claude Code +failed: .*malformed/);
  });

  test("comments in a strict-JSON file, a non-object server map, bad TOML: each refused", async () => {
    using home = tempDir();
    writeUserFiles(home.path, {
      ...USER_FILES,
      ".claude.json": `{\n  // no comments in .claude.json\n}`,
      ".cursor/mcp.json": `{"mcpServers": []}`,
      ".codex/config.toml": `[mcp_servers.docs\n`,
    });
    const r = await runZ(["connect", "--json"], { home: home.path });
    const report = JSON.parse(r.stdout) as Report;
    for (const t of ["claude-code", "cursor", "codex"]) expect(statusOf(report, t)).toBe("failed");
    expect(readFileSync(join(home.path, ".cursor/mcp.json"), "utf8")).toBe(`{"mcpServers": []}`);
    expect(statusOf(report, "gemini")).toBe("added");
  });

  test("an entry named zerodb that zerodb did not write survives disconnect", async () => {
    using home = tempDir();
    const mine = `{\n  "mcpServers": {\n    "zerodb": { "command": "/my/own/zerodb", "args": ["mcp"] }\n  }\n}\n`;
    writeUserFiles(home.path, { ...USER_FILES, ".cursor/mcp.json": mine });
    const r = await runJson<Report>(["disconnect", "--harness", "cursor"], { home: home.path });
    expect(r.results).toEqual([
      {
        target: "cursor",
        what: "mcp",
        label: "Cursor",
        path: join(home.path, ".cursor/mcp.json"),
        status: "skipped",
        detail: expect.stringContaining("not written by zerodb"),
      },
    ]);
    expect(readFileSync(join(home.path, ".cursor/mcp.json"), "utf8")).toBe(mine);
  });

  test("a harness's own edits between connect and disconnect are kept", async () => {
    using home = tempDir();
    writeUserFiles(home.path);
    await runJson(["connect", "--harness", "claude-code"], { home: home.path });
    // Claude Code rewrites the file as it runs: a new key and a new server.
    const file = join(home.path, ".claude.json");
    const v = JSON.parse(readFileSync(file, "utf8"));
    v.numStartups = 43;
    v.mcpServers.added_later = { type: "stdio", command: "later", args: [], env: {} };
    writeFileSync(file, JSON.stringify(v, null, 2));
    await runJson(["disconnect", "--harness", "claude-code"], { home: home.path });
    const after = JSON.parse(readFileSync(file, "utf8"));
    expect(after.mcpServers.zerodb).toBeUndefined();
    expect(after.mcpServers.added_later.command).toBe("later");
    expect(after.numStartups).toBe(43);
    expect(readFileSync(`${file}.zerodb-backup`, "utf8")).toBe(JSON.stringify(v, null, 2));
  });

  test("a symlinked config stays a symlink; the file it points at is edited", async () => {
    using home = tempDir();
    writeUserFiles(home.path);
    mkdirSync(join(home.path, "dotfiles"));
    writeFileSync(join(home.path, "dotfiles", "cursor-mcp.json"), USER_FILES[".cursor/mcp.json"]!);
    const link = join(home.path, ".cursor/mcp.json");
    Bun.spawnSync(["rm", link]);
    symlinkSync(join(home.path, "dotfiles", "cursor-mcp.json"), link);
    await runJson(["connect", "--harness", "cursor"], { home: home.path });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(join(home.path, "dotfiles", "cursor-mcp.json"));
    expect(JSON.parse(readFileSync(link, "utf8")).mcpServers.zerodb.command).toBe(ZERODB);
  });

  test("--harness limits the work; an unknown name is a usage error", async () => {
    using home = tempDir();
    writeUserFiles(home.path);
    const r = await runJson<Report>(["connect", "--harness", "codex,gemini-cli"], { home: home.path });
    expect(r.results.map((o) => [o.target, o.status])).toEqual([
      ["codex", "added"],
      ["gemini", "added"],
    ]);
    expect(readFileSync(join(home.path, ".claude.json"), "utf8")).toBe(USER_FILES[".claude.json"]!);
    const bad = await runZ(["connect", "--harness", "emacs"], { home: home.path });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--harness: unknown harness 'emacs'");
  });

  test("an explicit --data-dir travels in the entry's env; a harness named but not detected is still written", async () => {
    using home = tempDir();
    const r = await runJson<Report>(["connect", "--harness", "windsurf", "--data-dir", "elsewhere"], { home: home.path });
    expect(r.results).toEqual([expect.objectContaining({ target: "windsurf", status: "added", detail: expect.stringContaining("not detected") })]);
    const entry = JSON.parse(readFileSync(join(home.path, ".codeium/windsurf/mcp_config.json"), "utf8")).mcpServers.zerodb;
    expect(entry.env).toEqual({ ZERODB_MANAGED: "1", ZERODB_HOME: join(home.path, "zerodb"), ZERODB_DATA_DIR: join(home.path, "elsewhere") });
  });

  test("every write is atomic: a reader never sees a partial file", async () => {
    using home = tempDir();
    writeUserFiles(home.path);
    const file = join(home.path, ".claude.json");
    let reads = 0;
    let done = false;
    const reader = (async () => {
      while (!done) {
        JSON.parse(readFileSync(file, "utf8"));
        reads++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 4; i++) {
      await runJson(["connect", "--harness", "claude-code"], { home: home.path });
      await runJson(["disconnect", "--harness", "claude-code"], { home: home.path });
    }
    done = true;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(readFileSync(file, "utf8")).toBe(USER_FILES[".claude.json"]!);
    expect(listFiles(home.path).filter((f) => f.endsWith(".tmp"))).toEqual([]);
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
