/**
 * Where Claude Code keeps its files: `$CLAUDE_CONFIG_DIR`, default
 * `~/.claude` (HARNESSES.md, "Claude Code hooks"). Connect, doctor and
 * capture all find them here, so they agree on one folder.
 */
import { join, resolve } from "node:path";
import { envVar } from "./detect.ts";
import type { HarnessContext } from "./types.ts";

/**
 * Claude Code's config folder, absolute. Claude Code uses the variable as
 * given, so a relative one is relative to the directory it was started in:
 * resolved here against the context's working directory (the shell that runs
 * zerodb, the session's in a hook), so that what zerodb reports and writes is
 * one absolute path.
 */
export function claudeConfigDir(ctx: HarnessContext): string {
  const set = envVar(ctx, "CLAUDE_CONFIG_DIR");
  return set === undefined ? join(ctx.userHome, ".claude") : resolve(ctx.cwd ?? "", set);
}

/** Claude Code's user settings file, where hooks and cleanupPeriodDays live. */
export function claudeSettingsPath(ctx: HarnessContext): string {
  return join(claudeConfigDir(ctx), "settings.json");
}

/** Claude Code's user-scope MCP file: `~/.claude.json`, or inside `$CLAUDE_CONFIG_DIR` when that is set. */
export function claudeJsonPath(ctx: HarnessContext): string {
  return envVar(ctx, "CLAUDE_CONFIG_DIR") === undefined ? join(ctx.userHome, ".claude.json") : join(claudeConfigDir(ctx), ".claude.json");
}
