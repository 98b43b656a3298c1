/** Shared test helpers: temp dirs that clean up, and running the built binary. */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The compiled binary the end-to-end tests drive (built by `npm test`; `ZERODB_BIN` overrides). */
export const ZERODB = process.env.ZERODB_BIN ? resolve(process.env.ZERODB_BIN) : resolve(import.meta.dir, "..", "dist", "zerodb");

/** The source entry, for tests that run from source (`bun src/main.ts`). */
export const ZERODB_SRC = resolve(import.meta.dir, "..", "src", "main.ts");

/** A temporary directory removed when disposed: `using dir = tempDir()`. */
export function tempDir(prefix = "zerodb-test-"): { path: string; [Symbol.dispose](): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    [Symbol.dispose]() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** What a finished command printed and returned. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built binary with an isolated environment: HOME and ZERODB_HOME
 * point into `home`, so nothing touches the real user's files.
 */
export async function runZ(
  args: string[],
  opts: { home: string; stdin?: string | Uint8Array; env?: Record<string, string>; cwd?: string },
): Promise<RunResult> {
  const proc = Bun.spawn([ZERODB, ...args], {
    cwd: opts.cwd ?? opts.home,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: opts.home, ZERODB_HOME: join(opts.home, "zerodb"), ...opts.env },
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Runs the binary and parses its --json output, failing loudly when it did not succeed. */
export async function runJson<T = any>(args: string[], opts: Parameters<typeof runZ>[1]): Promise<T> {
  const r = await runZ([...args, "--json"], opts);
  if (r.code !== 0) throw new Error(`zerodb ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Every file under dir whose bytes contain `needle` (UTF-8): the byte scan of I9. */
export function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, "utf8");
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && readFileSync(join(e.parentPath, e.name)).includes(bytes))
    .map((e) => join(e.parentPath, e.name));
}
