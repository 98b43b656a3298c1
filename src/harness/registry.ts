/**
 * Every harness zerodb connects to, with where its user-level MCP config
 * lives on each platform and how to tell it is installed (HARNESSES.md,
 * "MCP registration, per harness").
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { claudeConfigDir, claudeJsonPath } from "./claude-paths.ts";
import { codex } from "./codex.ts";
import { envVar, isDir, onPath } from "./detect.ts";
import { OpencodeEntry } from "./entry-schemas.ts";
import { commandArgsShape, jsonServersFormat, type JsonServersShape } from "./json-servers.ts";
import type { Harness, HarnessContext } from "./types.ts";

/** A harness whose config is a JSON server map; `dir` is the folder whose existence means "installed". */
function jsonHarness(def: {
  name: string;
  label: string;
  bin?: string;
  dir: (ctx: HarnessContext) => string | undefined;
  file: (ctx: HarnessContext, dir: string) => string;
  shape: JsonServersShape;
}): Harness {
  return {
    name: def.name,
    label: def.label,
    configPath: (ctx) => {
      const dir = def.dir(ctx);
      return dir === undefined ? undefined : def.file(ctx, dir);
    },
    installed: (ctx) => {
      const dir = def.dir(ctx);
      if (dir === undefined) return false;
      return isDir(dir) || existsSync(def.file(ctx, dir)) || (def.bin !== undefined && onPath(def.bin, ctx));
    },
    ...jsonServersFormat(def.shape),
  };
}

/** The per-user application-data folder Electron apps use (VS Code, Claude Desktop). */
function appData(ctx: HarnessContext): string | undefined {
  if (ctx.platform === "darwin") return join(ctx.userHome, "Library", "Application Support");
  if (ctx.platform === "win32") return envVar(ctx, "APPDATA") ?? join(ctx.userHome, "AppData", "Roaming");
  return envVar(ctx, "XDG_CONFIG_HOME") ?? join(ctx.userHome, ".config");
}

/** `$XDG_CONFIG_HOME` or `~/.config` (opencode uses it on every platform). */
function xdgConfig(ctx: HarnessContext): string {
  return envVar(ctx, "XDG_CONFIG_HOME") ?? join(ctx.userHome, ".config");
}

const mcpServers = (jsonc: boolean, extra?: Record<string, unknown>) => commandArgsShape({ container: "mcpServers", jsonc, extra });

/** Claude Code, user scope: top-level mcpServers of ~/.claude.json, as `claude mcp add -s user` writes it. */
export const claudeCode = jsonHarness({
  name: "claude-code",
  label: "Claude Code",
  bin: "claude",
  dir: claudeConfigDir,
  file: claudeJsonPath,
  shape: mcpServers(false, { type: "stdio" }),
});

/** Every harness, in the order connect reports them. */
export const HARNESSES: readonly Harness[] = [
  claudeCode,
  codex,
  jsonHarness({
    name: "gemini",
    label: "Gemini CLI",
    bin: "gemini",
    dir: (ctx) => join(ctx.userHome, ".gemini"),
    file: (_, dir) => join(dir, "settings.json"),
    // Gemini CLI strips comments from its settings.
    shape: mcpServers(true),
  }),
  jsonHarness({
    name: "cursor",
    label: "Cursor",
    bin: "cursor",
    dir: (ctx) => join(ctx.userHome, ".cursor"),
    file: (_, dir) => join(dir, "mcp.json"),
    shape: mcpServers(true),
  }),
  jsonHarness({
    name: "vscode",
    label: "VS Code",
    bin: "code",
    dir: (ctx) => join(appData(ctx)!, "Code", "User"),
    file: (_, dir) => join(dir, "mcp.json"),
    shape: commandArgsShape({ container: "servers", jsonc: true, extra: { type: "stdio" } }),
  }),
  jsonHarness({
    name: "windsurf",
    label: "Windsurf",
    bin: "windsurf",
    dir: (ctx) => join(ctx.userHome, ".codeium", "windsurf"),
    file: (_, dir) => join(dir, "mcp_config.json"),
    shape: mcpServers(true),
  }),
  jsonHarness({
    name: "opencode",
    label: "opencode",
    bin: "opencode",
    dir: (ctx) => join(xdgConfig(ctx), "opencode"),
    // opencode reads opencode.jsonc too; edit that one when it is the file in use.
    file: (_, dir) =>
      !existsSync(join(dir, "opencode.json")) && existsSync(join(dir, "opencode.jsonc")) ? join(dir, "opencode.jsonc") : join(dir, "opencode.json"),
    shape: {
      container: "mcp",
      jsonc: true,
      entry: (s) => ({ type: "local", command: [s.command, ...s.args], environment: s.env, enabled: true }),
      read: (e) => {
        const r = OpencodeEntry.safeParse(e);
        return r.success ? { command: r.data.command[0]!, args: r.data.command.slice(1), env: r.data.environment } : undefined;
      },
    },
  }),
  jsonHarness({
    name: "claude-desktop",
    label: "Claude Desktop",
    // No official Linux build: the config path exists only on macOS and Windows.
    dir: (ctx) => (ctx.platform === "darwin" || ctx.platform === "win32" ? join(appData(ctx)!, "Claude") : undefined),
    file: (_, dir) => join(dir, "claude_desktop_config.json"),
    shape: mcpServers(false),
  }),
];

/** Names people type for a harness, beyond its own. */
const ALIASES: Record<string, string> = {
  claude: "claude-code",
  claudecode: "claude-code",
  "gemini-cli": "gemini",
  code: "vscode",
  "vs-code": "vscode",
  desktop: "claude-desktop",
};

/** The harness a `--harness` value names, or undefined. */
export function harnessNamed(name: string): Harness | undefined {
  const n = name.trim().toLowerCase();
  return HARNESSES.find((h) => h.name === (ALIASES[n] ?? n));
}
