/**
 * What connect refuses or leaves alone, through the built binary over real
 * config files in a temporary HOME (DESIGN.md 7.1): malformed files are left
 * untouched, an entry zerodb did not write survives, a harness's own edits
 * and symlinks are kept, --harness limits the work, writes are atomic.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ZERODB, runJson, runZ, tempDir } from "../helpers.ts";
import { type Report, USER_FILES, listFiles, statusOf, writeUserFiles } from "./_fixtures.ts";

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
