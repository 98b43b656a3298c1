/**
 * `bun run build`: compiles dist/zerodb for this machine. With `--target T
 * --outfile F` it cross-compiles (used by scripts/release.ts).
 */
import { $ } from "bun";
import { statSync } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { target: { type: "string" }, outfile: { type: "string" }, quiet: { type: "boolean" } },
});

/** The commit the tree was built from, with `-dirty` when it has uncommitted changes. */
export async function buildCommit(): Promise<string> {
  const sha = (await $`git rev-parse --short=12 HEAD`.nothrow().quiet()).stdout.toString().trim();
  if (!sha) return "unknown";
  const dirty = (await $`git status --porcelain --untracked-files=no`.nothrow().quiet()).stdout.toString().trim();
  return dirty ? `${sha}-dirty` : sha;
}

/** Compiles one binary; returns its size in bytes. */
export async function compile(opts: { target?: string; outfile: string; commit: string }): Promise<number> {
  const target = opts.target ? [`--target=${opts.target}`] : [];
  // --bytecode needs CommonJS output (no top-level await in the entry); it cuts start-up (DESIGN.md section 10).
  await $`bun build src/main.ts --compile --bytecode --format=cjs --minify-syntax --minify-whitespace ${target} --define ZERODB_BUILD_COMMIT=${JSON.stringify(opts.commit)} --outfile ${opts.outfile}`.quiet();
  return statSync(opts.outfile).size;
}

if (import.meta.main) {
  const outfile = values.outfile ?? "dist/zerodb";
  const size = await compile({ target: values.target, outfile, commit: await buildCommit() });
  if (!values.quiet) console.log(`built ${outfile} (${(size / 1048576).toFixed(1)} MiB)`);
}
