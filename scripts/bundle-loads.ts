/**
 * `bun scripts/bundle-loads.ts COMMAND...`: which modules a zerodb command
 * actually evaluates. Start-up is a feature (DESIGN.md section 10): each
 * command should pay only for what it uses, and this makes that visible.
 *
 * How: the same bundler `--compile` uses writes the CommonJS bundle to a file.
 * In it, every module reached through a lazy `import()` sits behind an
 * `init_<name> = __esm(...)` wrapper that runs on first use, preceded by a
 * `// <path>` comment; modules without a wrapper hold only declarations and
 * cost nothing to evaluate. Each wrapper is relabelled to record its path
 * when it first runs, and the list is printed to stderr at exit.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const MARK = "ZERODB_LOADED ";

/** A built, instrumented bundle of src/main.ts. */
export interface InstrumentedBundle {
  file: string;
  /** How many lazily evaluated modules the bundle has (a sanity figure: zero means the format changed). */
  wrapped: number;
  [Symbol.dispose](): void;
}

/** Builds src/main.ts to a CommonJS bundle and instruments its lazy module wrappers. */
export async function instrumentedBundle(): Promise<InstrumentedBundle> {
  const dir = mkdtempSync(join(tmpdir(), "zerodb-bundle-"));
  const raw = join(dir, "raw.js");
  const built = Bun.spawnSync([process.execPath, "build", "src/main.ts", "--target=bun", "--format=cjs", "--outfile", raw], {
    cwd: ROOT,
    stdout: "ignore",
    stderr: "pipe",
  });
  if (built.exitCode !== 0) throw new Error(`bun build failed: ${built.stderr.toString().trim()}`);
  const lines = (await Bun.file(raw).text()).split("\n");
  let path = "?";
  let wrapped = 0;
  const out = lines.map((line) => {
    const comment = /^\/\/ (\S+\.(?:[cm]?[jt]s|json|sql))$/.exec(line);
    if (comment) path = comment[1]!;
    const wrapper = /^(var init_\w+ = )__esm\(/.exec(line);
    if (!wrapper) return line;
    wrapped++;
    return line.replace("__esm(", `__zerodbLoad(${JSON.stringify(path)}, `);
  });
  const prelude = [
    `var __zerodbLoaded = [];`,
    `process.on("exit", () => process.stderr.write(${JSON.stringify(MARK)} + JSON.stringify(__zerodbLoaded) + "\\n"));`,
    `var __zerodbLoad = (p, fn) => { const init = __esm(fn); let seen = false; return () => { if (!seen) { seen = true; __zerodbLoaded.push(p); } return init(); }; };`,
  ].join("\n");
  const at = out.findIndex((l) => l.startsWith("var __esm = "));
  if (at < 0) throw new Error("bundle format changed: no __esm helper found");
  out.splice(at, 0, prelude);
  const file = join(dir, "bundle.js");
  await Bun.write(file, out.join("\n"));
  return { file, wrapped, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The distinct packages and source files a module list touches: `zod`, `@modelcontextprotocol/sdk`, `src/cli/main.ts`. */
export function packagesOf(paths: readonly string[]): string[] {
  const names = paths.map((p) => {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p);
    return m ? m[1]! : p;
  });
  return [...new Set(names)].sort();
}

/** Runs the bundle with `args` in an isolated home and returns the modules it evaluated, in order. */
export async function loadedModules(bundle: InstrumentedBundle, args: string[], opts: { home: string; stdin?: string }): Promise<string[]> {
  const proc = Bun.spawn([process.execPath, bundle.file, ...args], {
    cwd: opts.home,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: opts.home, ZERODB_HOME: join(opts.home, "zerodb") },
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "ignore",
    stderr: "pipe",
  });
  const [stderr] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  const line = stderr.split("\n").find((l) => l.startsWith(MARK));
  if (!line) throw new Error(`zerodb ${args.join(" ")} printed no module list: ${stderr.trim().slice(0, 300)}`);
  return JSON.parse(line.slice(MARK.length)) as string[];
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  using bundle = await instrumentedBundle();
  const home = mkdtempSync(join(tmpdir(), "zerodb-loads-"));
  try {
    const stdin = process.stdin.isTTY ? undefined : await Bun.stdin.text();
    const loaded = await loadedModules(bundle, args, { home, stdin });
    console.log(`zerodb ${args.join(" ")} evaluates ${loaded.length} of ${bundle.wrapped} lazily loaded modules:`);
    for (const p of packagesOf(loaded)) console.log(`  ${p}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
