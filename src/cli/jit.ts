/**
 * The JIT policy a command runs under. The binary starts with JavaScriptCore's
 * tier-up thresholds scaled up (`--compile-jit-policy`, scripts/build.ts): code
 * that runs once at start-up stays in the interpreter instead of costing
 * compiler work on a machine whose cores the harness is using (DESIGN.md
 * section 10). A command that runs to exit in milliseconds keeps that
 * policy; every other one returns to the normal policy before it works,
 * so a server's or a backfill's hot loops are compiled as usual. `zerodb mcp`
 * returns to it once its client is initialized, or sends its first request
 * after `initialize` without saying so (commands/mcp.ts, mcp/started.ts).
 */

/** The first command words that keep the start-up policy: the hooks, `version`, and `mcp` until it is initialized. */
const START_UP_ONLY = new Set(["hook", "version", "mcp"]);

/** Sets the normal JIT policy unless `command` keeps the start-up one; `set` is Bun's (injectable for tests). */
export function settleJitPolicy(command: string | undefined, set: (scale: number) => void = normalJit): void {
  if (command === undefined || !START_UP_ONLY.has(command)) set(1);
}

/** Bun's setter, where there is one (a run from source under an older Bun has none). */
export function normalJit(scale = 1): void {
  Bun.unsafe.setJITPolicy?.(scale);
}
