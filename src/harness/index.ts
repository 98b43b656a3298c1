/**
 * The harness module's public face: connect and disconnect (DESIGN.md 7.1),
 * what they register, and what doctor reads back. Everything outside
 * src/harness/ imports from here.
 */
export { readState } from "./apply.ts";
export { captureConfigJob, GEMINI_HOOKS, geminiHooksJob, hooksJob } from "./capture-jobs.ts";
export { HOOK_EVENTS, readHooks } from "./claude-hooks.ts";
export { readToml } from "./toml.ts";
export { claudeConfigDir, claudeSettingsPath } from "./claude-paths.ts";
export { codexHome } from "./codex.ts";
export { codexNotifyCommand, codexNotifyJob, isZerodbNotify } from "./codex-notify.ts";
export { isExecutable } from "./detect.ts";
export { opencodeHookArgv, opencodePluginJob, opencodePluginPath, pluginArgv } from "./opencode-plugin.ts";
export { parseJson, toValue } from "./jsonc.ts";
export { claudeCode, HARNESSES, harnessNamed } from "./registry.ts";
export { type FileJob, mcpJobs, type Outcome, runJobs, type Selection } from "./run-jobs.ts";
export { type SelfCommand, selfCommand } from "./self.ts";
export { hookCommand, serverSpec } from "./server-spec.ts";
export { commandProgram, shellQuote } from "./shell.ts";
export type { Harness, HarnessContext } from "./types.ts";
