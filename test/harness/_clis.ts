/**
 * The real harness CLIs (Claude Code, Codex, Gemini CLI, opencode) for tests that let
 * them read what zerodb wrote. Installed from npm into .harnesses/ (git
 * ignored) on first use; `.ci/run` installs them up front. A test skips, with
 * a message, when its CLI cannot be installed.
 */
import { existsSync, mkdirSync, rmdirSync } from "node:fs";
import { join, resolve } from "node:path";

/** The pinned packages, by the command they provide. */
export const HARNESS_PACKAGES = {
  claude: "@anthropic-ai/claude-code@2.1.332",
  codex: "@openai/codex@0.171.0",
  gemini: "@google/gemini-cli@0.61.0",
  opencode: "opencode-ai@1.18.33",
} as const;

/** Where the CLIs are installed. */
export const HARNESS_DIR = resolve(import.meta.dir, "..", "..", ".harnesses");

/** Path of an installed CLI, installing it first when needed; undefined (with a warning) when it cannot be had. */
export async function harnessBin(name: keyof typeof HARNESS_PACKAGES): Promise<string | undefined> {
  // Each CLI in a prefix of its own: a --no-save install would prune the others.
  const prefix = join(HARNESS_DIR, name);
  const bin = join(prefix, "node_modules", ".bin", name);
  if (existsSync(bin)) return bin;
  if (process.env.ZERODB_NO_HARNESS_INSTALL) {
    console.warn(`skipping: ${name} is not installed and ZERODB_NO_HARNESS_INSTALL is set`);
    return undefined;
  }
  mkdirSync(prefix, { recursive: true });
  const lock = join(HARNESS_DIR, `.lock-${name}`);
  // One installer at a time across test processes: mkdir is atomic.
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(bin)) return bin;
      if (i > 1200) break;
      await Bun.sleep(250);
    }
  }
  try {
    if (existsSync(bin)) return bin;
    const proc = Bun.spawn(["npm", "install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", HARNESS_PACKAGES[name]], {
      stdout: "ignore",
      stderr: "pipe",
    });
    const err = await new Response(proc.stderr).text();
    if ((await proc.exited) !== 0 || !existsSync(bin)) {
      console.warn(`skipping: could not install ${HARNESS_PACKAGES[name]}: ${err.trim().split("\n").slice(-2).join(" ")}`);
      return undefined;
    }
    return bin;
  } finally {
    try {
      rmdirSync(lock);
    } catch {}
  }
}
