/**
 * What `npm test` (scripts/test.ts) runs for its arguments: whether it
 * builds dist/zerodb first, which files `bun test` gets and what else goes
 * to it. Kept apart from the script so the choice is tested without running
 * the suite.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fastFiles, needsBinary } from "./tiers.ts";

/** The script's own --help. */
export const HELP = `Usage: npm test [-- OPTIONS] [PATH...]        (bun scripts/test.ts)

Builds dist/zerodb, runs bun test, and closes with one line
"tests: N passed, N failed in 3m 41s".

  PATH        a test file or folder (test/store, test/http/app.test.ts);
              without --fast it is bun test's filter, as bun test takes it
  --fast      only the fast tier (scripts/test/tiers.ts), under PATH when given
              (npm run test:fast -- test/search); the build is skipped when
              none of those files runs the binary
  --help, -h  this text
  anything else goes to bun test as it is (-t NAME, --bail, --rerun-each N)
`;

/** bun test's flags that take the next argument as their value. */
const VALUE_FLAGS = new Set([
  "-t",
  "--test-name-pattern",
  "--timeout",
  "--rerun-each",
  "--preload",
  "-r",
  "--seed",
  "--reporter",
  "--reporter-outfile",
  "--coverage-reporter",
  "--max-concurrency",
]);

/** What to run. */
export interface TestPlan {
  help: boolean;
  /** Build dist/zerodb before the tests. */
  build: boolean;
  /** With --fast: the files to run (`./test/...`); empty otherwise (bun test finds them). */
  files: string[];
  /** What goes to bun test after the files. */
  args: string[];
  /** With --fast: set when no fast-tier file lies under the paths given, saying so. */
  nothing?: string;
}

/** Reads the script's arguments against the test tree at `root`. */
export function planTests(argv: readonly string[], root: string): TestPlan {
  if (argv.includes("--help") || argv.includes("-h")) return { help: true, build: false, files: [], args: [] };
  const fast = argv.includes("--fast");
  const rest = argv.filter((a) => a !== "--fast");
  if (!fast) return { help: false, build: true, files: [], args: rest };
  const paths: string[] = [];
  const args: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (VALUE_FLAGS.has(a)) {
      args.push(a, ...rest.slice(i + 1, i + 2));
      i++;
    } else if (!a.startsWith("-") && existsSync(join(root, a))) paths.push(normal(a));
    else args.push(a);
  }
  const files = fastFiles(root).filter((f) => paths.length === 0 || paths.some((p) => f === p || f.startsWith(`${p}/`)));
  if (files.length === 0)
    return { help: false, build: false, files: [], args, nothing: `no fast-tier test under ${paths.join(", ")} (npm test -- PATH runs every tier)` };
  const seen = new Map<string, boolean>();
  return { help: false, build: files.some((f) => needsBinary(root, f, seen)), files: files.map((f) => `./${f}`), args };
}

/** A path as fastFiles names them: forward slashes, no `./`, no trailing slash. */
function normal(path: string): string {
  return path
    .split("\\")
    .join("/")
    .replace(/^(\.\/)+/, "")
    .replace(/\/+$/, "");
}
