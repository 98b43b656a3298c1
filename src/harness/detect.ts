/** Finding installed harnesses without running anything: directories and PATH lookups only. */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { HarnessContext } from "./types.ts";

/** True when `path` is an existing directory. */
export function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** True when `path` is a file this user may execute. */
export function isExecutable(path: string, platform: NodeJS.Platform = process.platform): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    // Windows has no execute bit; existence is what counts there.
    if (platform !== "win32") accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** True when an executable named `bin` is on the context's PATH. */
export function onPath(bin: string, ctx: HarnessContext): boolean {
  const path = ctx.env.PATH ?? ctx.env.Path ?? "";
  const sep = ctx.platform === "win32" ? ";" : delimiter;
  const exts = ctx.platform === "win32" ? (ctx.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").concat("") : [""];
  for (const dir of path.split(sep)) {
    if (!dir) continue;
    for (const ext of exts) if (isExecutable(join(dir, bin + ext), ctx.platform)) return true;
  }
  return false;
}

/** A variable of the context's environment, or undefined when unset or empty. */
export function envVar(ctx: HarnessContext, name: string): string | undefined {
  const v = ctx.env[name];
  return v !== undefined && v !== "" ? v : undefined;
}
