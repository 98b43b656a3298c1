/**
 * Where Codex keeps its files. Apart from codex.ts so the Codex capture hook
 * finds its rollouts without loading the config editors codex.ts needs.
 */
import { join } from "node:path";
import { envVar } from "./detect.ts";
import type { HarnessContext } from "./types.ts";

/** `$CODEX_HOME`, or `~/.codex`. */
export function codexHome(ctx: HarnessContext): string {
  return envVar(ctx, "CODEX_HOME") ?? join(ctx.userHome, ".codex");
}
