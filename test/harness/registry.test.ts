/** Where each harness keeps its config on each platform, and how connect tells it is installed. */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onPath } from "../../src/harness/detect.ts";
import { claudeConfigDir, claudeSettingsPath, HARNESSES, type HarnessContext, harnessNamed } from "../../src/harness/index.ts";
import { tempDir } from "../helpers.ts";

const ctx = (platform: NodeJS.Platform, env: Record<string, string> = {}, userHome = "/home/u"): HarnessContext => ({ userHome, env, platform });
const pathOf = (name: string, c: HarnessContext) => harnessNamed(name)!.configPath(c);

describe("config paths", () => {
  test("Linux", () => {
    const c = ctx("linux");
    expect(Object.fromEntries(HARNESSES.map((h) => [h.name, h.configPath(c)]))).toEqual({
      "claude-code": "/home/u/.claude.json",
      codex: "/home/u/.codex/config.toml",
      gemini: "/home/u/.gemini/settings.json",
      cursor: "/home/u/.cursor/mcp.json",
      vscode: "/home/u/.config/Code/User/mcp.json",
      windsurf: "/home/u/.codeium/windsurf/mcp_config.json",
      opencode: "/home/u/.config/opencode/opencode.json",
      // No official Linux build.
      "claude-desktop": undefined,
    });
  });

  test("macOS and Windows", () => {
    expect(pathOf("vscode", ctx("darwin", {}, "/Users/u"))).toBe("/Users/u/Library/Application Support/Code/User/mcp.json");
    expect(pathOf("claude-desktop", ctx("darwin", {}, "/Users/u"))).toBe("/Users/u/Library/Application Support/Claude/claude_desktop_config.json");
    const win = ctx("win32", { APPDATA: "/w/AppData/Roaming" }, "/w");
    expect(pathOf("vscode", win)).toBe(join("/w/AppData/Roaming", "Code", "User", "mcp.json"));
    expect(pathOf("claude-desktop", win)).toBe(join("/w/AppData/Roaming", "Claude", "claude_desktop_config.json"));
  });

  test("CLAUDE_CONFIG_DIR, CODEX_HOME and XDG_CONFIG_HOME move the files; empty values do not", () => {
    const c = ctx("linux", { CLAUDE_CONFIG_DIR: "/cfg/claude", CODEX_HOME: "/cfg/codex", XDG_CONFIG_HOME: "/cfg/xdg" });
    expect(pathOf("claude-code", c)).toBe("/cfg/claude/.claude.json");
    expect(pathOf("codex", c)).toBe("/cfg/codex/config.toml");
    expect(pathOf("opencode", c)).toBe("/cfg/xdg/opencode/opencode.json");
    expect(pathOf("vscode", c)).toBe("/cfg/xdg/Code/User/mcp.json");
    const empty = ctx("linux", { CLAUDE_CONFIG_DIR: "", CODEX_HOME: "", XDG_CONFIG_HOME: "" });
    expect(pathOf("claude-code", empty)).toBe("/home/u/.claude.json");
    expect(pathOf("codex", empty)).toBe("/home/u/.codex/config.toml");
  });

  test("a relative CLAUDE_CONFIG_DIR is taken from the working directory, as Claude Code started there reads it, and named absolute", () => {
    const c: HarnessContext = { ...ctx("linux", { CLAUDE_CONFIG_DIR: "cfg/claude" }), cwd: "/work/project" };
    expect(claudeConfigDir(c)).toBe("/work/project/cfg/claude");
    expect(claudeSettingsPath(c)).toBe("/work/project/cfg/claude/settings.json");
    expect(pathOf("claude-code", c)).toBe("/work/project/cfg/claude/.claude.json");
    expect(claudeConfigDir({ ...c, env: {} })).toBe("/home/u/.claude");
  });

  test("opencode.jsonc is edited when it is the file in use", () => {
    using home = tempDir();
    const dir = join(home.path, ".config", "opencode");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "opencode.jsonc"), "{}");
    expect(pathOf("opencode", ctx("linux", {}, home.path))).toBe(join(dir, "opencode.jsonc"));
    writeFileSync(join(dir, "opencode.json"), "{}");
    expect(pathOf("opencode", ctx("linux", {}, home.path))).toBe(join(dir, "opencode.json"));
  });
});

describe("detection", () => {
  test("a config dir, a config file or a binary on PATH means installed", () => {
    using home = tempDir();
    const bin = join(home.path, "bin");
    mkdirSync(bin);
    const c = ctx("linux", { PATH: `/nonexistent:${bin}` }, home.path);
    expect(HARNESSES.filter((h) => h.installed(c)).map((h) => h.name)).toEqual([]);
    mkdirSync(join(home.path, ".gemini"));
    writeFileSync(join(home.path, ".claude.json"), "{}");
    writeFileSync(join(bin, "codex"), "#!/bin/sh\n");
    // Not executable: not a binary.
    expect(onPath("codex", c)).toBe(false);
    chmodSync(join(bin, "codex"), 0o755);
    mkdirSync(join(bin, "cursor"));
    expect(HARNESSES.filter((h) => h.installed(c)).map((h) => h.name)).toEqual(["claude-code", "codex", "gemini"]);
  });

  test("Codex with a CODEX_HOME that does not exist is blocked, with the reason", () => {
    expect(harnessNamed("codex")!.blocked!(ctx("linux", { CODEX_HOME: "/does/not/exist" }))).toContain("CODEX_HOME");
    expect(harnessNamed("codex")!.blocked!(ctx("linux"))).toBeUndefined();
  });

  test("names and aliases", () => {
    expect(harnessNamed("claude")?.name).toBe("claude-code");
    expect(harnessNamed(" Gemini-CLI ")?.name).toBe("gemini");
    expect(harnessNamed("code")?.name).toBe("vscode");
    expect(harnessNamed("emacs")).toBeUndefined();
  });
});

describe("entry shapes", () => {
  const spec = { command: "/opt/zerodb", args: ["mcp"], env: { ZERODB_MANAGED: "1" } };
  const added = (name: string) => JSON.parse((harnessNamed(name)!.planAdd(undefined, spec) as { text: string }).text);

  test("each harness gets the shape it reads", () => {
    expect(added("claude-code")).toEqual({ mcpServers: { zerodb: { type: "stdio", command: "/opt/zerodb", args: ["mcp"], env: spec.env } } });
    expect(added("vscode")).toEqual({ servers: { zerodb: { type: "stdio", command: "/opt/zerodb", args: ["mcp"], env: spec.env } } });
    expect(added("opencode")).toEqual({ mcp: { zerodb: { type: "local", command: ["/opt/zerodb", "mcp"], environment: spec.env, enabled: true } } });
    for (const n of ["gemini", "cursor", "windsurf", "claude-desktop"])
      expect(added(n)).toEqual({ mcpServers: { zerodb: { command: "/opt/zerodb", args: ["mcp"], env: spec.env } } });
  });

  test("an existing entry keeps the user's extra keys and env; stale ZERODB_ variables go", () => {
    const h = harnessNamed("gemini")!;
    const text = JSON.stringify({
      mcpServers: { zerodb: { command: "/old", args: ["mcp"], env: { ZERODB_HOME: "/old", MINE: "1" }, timeout: 5000, trust: true } },
    });
    const plan = h.planAdd(text, spec) as { change: string; text: string };
    expect(plan.change).toBe("updated");
    expect(JSON.parse(plan.text).mcpServers.zerodb).toEqual({
      command: "/opt/zerodb",
      args: ["mcp"],
      env: { MINE: "1", ZERODB_MANAGED: "1" },
      timeout: 5000,
      trust: true,
    });
    expect(h.planAdd(plan.text, spec)).toEqual({ change: "unchanged" });
  });

  test("only entries carrying the marker are removed", () => {
    const h = harnessNamed("cursor")!;
    expect(h.planRemove(JSON.stringify({ mcpServers: { zerodb: { command: "/mine", args: [] } } })).change).toBe("foreign");
    expect(h.planRemove(JSON.stringify({ mcpServers: { zerodb: { command: "/z", env: { ZERODB_MANAGED: "1" } } } })).change).toBe("removed");
    expect(() => h.planAdd(`{"mcpServers": [1]}`, spec)).toThrow("mcpServers");
    expect(() => h.planAdd(`[]`, spec)).toThrow("top level");
  });
});
