/**
 * `bun run build`: compiles dist/zerodb for this machine. With `--target T
 * --outfile F` it cross-compiles (used by scripts/release.ts).
 */
import { $ } from "bun";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";

/** The project root: builds run there whatever the caller's working directory. */
const ROOT = resolve(import.meta.dir, "..");

/** The commit the tree was built from, with `-dirty` when it has uncommitted changes. */
export async function buildCommit(): Promise<string> {
  const sha = (await $`git rev-parse --short=12 HEAD`.cwd(ROOT).nothrow().quiet()).stdout.toString().trim();
  if (!sha) return "unknown";
  const dirty = (await $`git status --porcelain --untracked-files=no`.cwd(ROOT).nothrow().quiet()).stdout.toString().trim();
  return dirty ? `${sha}-dirty` : sha;
}

/**
 * Compiles one binary; returns its size in bytes. `bytecode: false` drops
 * --bytecode (and the CommonJS output it needs) for a target that refuses it.
 */
export async function compile(opts: { target?: string; outfile: string; commit: string; bytecode?: boolean }): Promise<number> {
  const target = opts.target ? [`--target=${opts.target}`] : [];
  // --bytecode needs CommonJS output (no top-level await in the entry); it cuts start-up (DESIGN.md section 10).
  const bytecode = opts.bytecode === false ? [] : ["--bytecode", "--format=cjs"];
  // A compiled Bun binary reads .env and bunfig.toml from its working directory by default: a project's .env
  // could then move the home (ZERODB_HOME) of the hook and the MCP server that run there. zerodb reads neither.
  const noAutoload = ["--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"];
  // Tier-up thresholds ×256 at start: run-once start-up code (and a hook's whole run) stays in the interpreter;
  // commands that run long return to the normal policy (src/cli/jit.ts). ×8 was measured first, then ×256 for the
  // hooks, whose own work the JIT's compiling cost more than it saved: docs/decisions/performance.md (2026-12-02).
  const jit = ["--compile-jit-policy=256"];
  const outfile = resolve(opts.outfile);
  // Workers are entry points of their own (new Worker(new URL(...))): capture's read-ahead, mcp's migration ahead.
  // process.execPath: the Bun running this script compiles, so every target gets the same runtime version.
  await $`${process.execPath} build src/main.ts src/capture/read-worker.ts src/store/sqlite/migrate-worker.ts --compile ${bytecode} ${noAutoload} ${jit} --minify-syntax --minify-whitespace ${target} --define ZERODB_BUILD_COMMIT=${JSON.stringify(opts.commit)} --outfile ${outfile}`
    .cwd(ROOT)
    .quiet();
  return statSync(outfile).size;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { target: { type: "string" }, outfile: { type: "string" }, quiet: { type: "boolean" } },
  });
  const outfile = values.outfile ?? "dist/zerodb";
  const size = await compile({ target: values.target, outfile, commit: await buildCommit() });
  if (!values.quiet) console.log(`built ${outfile} (${(size / 1048576).toFixed(1)} MiB)`);
}
