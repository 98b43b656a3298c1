/**
 * The two file jobs besides the MCP registrations: Claude Code's capture
 * hooks (settings.json) and `capture.enabled` in zerodb's own config.json,
 * which `connect --capture` turns on and `disconnect` turns off.
 */
import { configFileSchema } from "../config.ts";
import { parseInput } from "../schema/parse.ts";
import { type HookSpec, planHooks, planRemoveHooks } from "./claude-hooks.ts";
import { harnessNamed } from "./registry.ts";
import { claudeSettingsPath } from "./claude-paths.ts";
import type { FileJob } from "./run-jobs.ts";
import { editJson, getPath } from "./json-edit.ts";
import { sameJsonSettings } from "./json-servers.ts";
import { parseJson, toValue } from "./jsonc.ts";
import type { HarnessContext, Plan } from "./types.ts";

const STRICT = { jsonc: false };

/** Installs the hooks running `command`, or (undefined) removes zerodb's hooks. */
export function hooksJob(ctx: HarnessContext, command: string | undefined): FileJob {
  return {
    target: "claude-code",
    what: "hooks",
    label: "Claude Code hooks",
    path: claudeSettingsPath(ctx),
    plan: (text) => (command !== undefined ? planHooks(text, command) : planRemoveHooks(text)),
    sameSettings: (a, b) => sameJsonSettings(a, b, { jsonc: false, container: "hooks" }),
  };
}

/**
 * Gemini CLI's hooks in `~/.gemini/settings.json` (HARNESSES.md "Gemini
 * CLI"): the Claude Code shape, timeouts in milliseconds. AfterAgent ends
 * every turn; PreCompress comes before history is compressed; SessionEnd
 * closes the session. Gemini loads them only in trusted folders.
 */
export const GEMINI_HOOKS: HookSpec = {
  events: [
    { event: "AfterAgent", timeout: 30_000 },
    { event: "PreCompress", timeout: 30_000 },
    { event: "SessionEnd", timeout: 10_000 },
  ],
  suffix: "hook gemini",
  jsonc: true,
};

/** Installs Gemini CLI's hooks running `command`, or (undefined) removes zerodb's. */
export function geminiHooksJob(ctx: HarnessContext, command: string | undefined): FileJob {
  return {
    target: "gemini",
    what: "hooks",
    label: "Gemini CLI hooks",
    path: harnessNamed("gemini")!.configPath(ctx)!,
    plan: (text) => (command !== undefined ? planHooks(text, command, GEMINI_HOOKS) : planRemoveHooks(text, GEMINI_HOOKS)),
    sameSettings: (a, b) => sameJsonSettings(a, b, { jsonc: true, container: "hooks" }),
    // settings.json is also the MCP job's file: connect runs this job after it, disconnect before it.
    backupSuffix: ".zerodb-hooks-backup",
  };
}

/** Reads config.json's value, validated by the ConfigFile schema (errors name the key: config.capture.enabled). */
function configValue(text: string): Record<string, unknown> {
  const value = toValue(parseJson(text, STRICT).root);
  parseInput(configFileSchema(), value, "config");
  return value as Record<string, unknown>;
}

/** Sets `capture.enabled` in zerodb's config.json. */
export function captureConfigJob(configFile: string, enabled: boolean): FileJob {
  return {
    target: "zerodb",
    what: "config",
    label: "zerodb capture setting",
    path: configFile,
    plan(text): Plan {
      const blank = text === undefined || text.trim() === "";
      const current = blank ? undefined : getPath(configValue(text), ["capture", "enabled"]);
      if ((current ?? false) === enabled) return { change: "unchanged" };
      const out = editJson(text ?? "", ["capture", "enabled"], enabled, STRICT);
      configValue(out);
      return { change: blank ? "added" : "updated", text: out };
    },
  };
}
