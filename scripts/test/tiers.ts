/**
 * The fast tier of `npm run test:fast`: the folders whose tests run in
 * process or spawn a few short commands, minus the files there that spawn
 * many processes, kill them in loops or move gigabytes. Everything else
 * (cli, doctor, security, fuzz, faults, release, readme, bench, and a folder
 * added later until it is listed here) runs only in the full `npm test`.
 */
/** Folders of the fast tier. */
export const FAST_DIRS: readonly string[] = [
  "test/unit",
  "test/util",
  "test/search",
  "test/spill",
  "test/store",
  "test/connect",
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
  "test/connect/clients.test.ts": "the real harness CLIs read what connect wrote",
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
