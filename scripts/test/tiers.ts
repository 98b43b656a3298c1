/**
 * The fast tier of `npm run test:fast`: the folders whose tests run in
 * process or spawn a few short commands, minus the files there that spawn
 * many processes, kill them in loops or move gigabytes. Everything else
 * (cli, doctor, security, fuzz, faults, release, readme, bench, and a folder
 * added later until it is listed here) runs only in the full `npm test`.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** Folders of the fast tier. */
export const FAST_DIRS: readonly string[] = [
  "test/imports",
  "test/scripts",
  "test/schema",
  "test/redact",
  "test/history",
  "test/util",
  "test/search",
  "test/spill",
  "test/store",
  "test/harness",
  "test/http",
  "test/mcp",
  "test/objects",
  "test/capture",
  "test/sync",
];

/** Files under FAST_DIRS left to the full run (globs from the repository root), each with why. */
export const SLOW_FILES: Readonly<Record<string, string>> = {
  "test/**/*.e2e.test.ts": "drive the compiled binary end to end",
  "test/**/crash.test.ts": "kill -9 loops over many processes",
  "test/capture/big.test.ts": "100 MiB tool results, runs killed between chunks",
  "test/capture/big-harness.test.ts": "100 MiB tool outputs of Codex, Gemini CLI and opencode, runs killed between chunks",
  "test/capture/race.test.ts": "hooks of one session racing in many processes",
  "test/capture/remote.test.ts": "a 64 MiB entry through a real serve",
  "test/objects/http-big.test.ts": "a 2 GiB object over HTTP",
  "test/harness/clients.test.ts": "the real harness CLIs read what connect wrote",
  "test/store/postgres/*.test.ts": "start a real PostgreSQL and several serve processes",
  "test/store/contract/postgres.contract.test.ts": "starts a real PostgreSQL",
  "test/store/contract/http-postgres.contract.test.ts": "a real PostgreSQL and a serve per case",
  "test/http/viewer/browser.test.ts": "drives a real headless Chromium against a real serve",
  "test/http/viewer/history.browser.test.ts": "drives a real headless Chromium against a real serve",
};

/** The fast tier's test files under `root`, as paths relative to it, sorted. */
export function fastFiles(root: string): string[] {
  const slow = Object.keys(SLOW_FILES).map((p) => new Bun.Glob(p));
  return [...new Bun.Glob("test/**/*.test.ts").scanSync({ cwd: root })]
    .map((f) => f.split("\\").join("/"))
    .filter((f) => FAST_DIRS.some((d) => f.startsWith(`${d}/`)) && !slow.some((g) => g.match(f)))
    .sort();
}

/** The names of test/helpers.ts that run the built binary. */
const BINARY_NAMES = ["ZERODB", "runZ", "runJson"];

/**
 * Whether a test file runs the built dist/zerodb: it imports one of
 * BINARY_NAMES from test/helpers.ts, names dist/zerodb itself, or imports
 * (not only types) a test or script module that does. Read from the source
 * text, so it costs no import; `src/` is the code under test and never runs
 * the binary.
 */
export function needsBinary(root: string, file: string, seen = new Map<string, boolean>()): boolean {
  const known = seen.get(file);
  if (known !== undefined) return known;
  seen.set(file, false); // a cycle of test modules adds nothing
  const text = readFileSync(join(root, file), "utf8");
  let needs = /dist\/zerodb|"dist", "zerodb"/.test(text) && !file.endsWith("test/helpers.ts");
  for (const m of text.matchAll(/^import\s+(type\s+)?([\s\S]*?)\s+from\s+"(\.{1,2}\/[^"]+)"/gm)) {
    if (needs) break;
    if (m[1]) continue;
    const target = relative(root, resolve(root, dirname(file), m[3]!))
      .split("\\")
      .join("/");
    if (target === "test/helpers.ts") needs = BINARY_NAMES.some((n) => new RegExp(`(^|[{,\\s])${n}([,}\\s]|$)`).test(m[2]!.replace(/\btype\s+\w+/g, "")));
    else if (!target.startsWith("src/") && existsSync(join(root, target))) needs = needsBinary(root, target, seen);
  }
  seen.set(file, needs);
  return needs;
}
