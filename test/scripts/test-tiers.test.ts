/** The fast tier of `npm run test:fast` (scripts/test/tiers.ts) stays in step with the test tree. */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { HELP, planTests } from "../../scripts/test/plan.ts";
import { FAST_DIRS, SLOW_FILES, fastFiles, needsBinary } from "../../scripts/test/tiers.ts";
import { tempDir } from "../helpers.ts";

const ROOT = resolve(import.meta.dir, "..", "..");

describe("test tiers", () => {
  test("every fast folder exists and every slow pattern still names a file there (a renamed slow test would slip into the fast tier)", () => {
    expect(FAST_DIRS.filter((d) => !existsSync(join(ROOT, d)))).toEqual([]);
    const all = [...new Bun.Glob("test/**/*.test.ts").scanSync({ cwd: ROOT })].map((f) => f.split("\\").join("/"));
    const inFast = all.filter((f) => FAST_DIRS.some((d) => f.startsWith(`${d}/`)));
    expect(Object.keys(SLOW_FILES).filter((p) => !inFast.some((f) => new Bun.Glob(p).match(f)))).toEqual([]);
  });

  test("the fast tier leaves out the many-process, fuzz, fault, release and harness tests and keeps the in-process ones", () => {
    const fast = fastFiles(ROOT);
    for (const slow of [
      "test/cli/open-race.test.ts",
      "test/store/crash.test.ts",
      "test/mcp/tools.e2e.test.ts",
      "test/harness/clients.test.ts",
      "test/fuzz/store.fuzz.test.ts",
      "test/faults/mixed.test.ts",
      "test/release/install.test.ts",
    ]) {
      expect({ slow, fast: fast.includes(slow) }).toEqual({ slow, fast: false });
    }
    for (const quick of ["test/imports/layers.test.ts", "test/search/query.test.ts", "test/store/contract/sqlite.contract.test.ts", "test/http/app.test.ts"]) {
      expect({ quick, fast: fast.includes(quick) }).toEqual({ quick, fast: true });
    }
  });
});

/** A small test tree in a temp dir: `files` maps a path to its text. */
function tree(files: Record<string, string>): { path: string; [Symbol.dispose](): void } {
  const dir = tempDir("zerodb-tiers-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir.path, path)), { recursive: true });
    writeFileSync(join(dir.path, path), text);
  }
  return dir;
}

const HELPERS = 'export const ZERODB = "dist/zerodb";\nexport function tempDir() {}\nexport function runZ() {}\n';

describe("which tests run the built binary", () => {
  test("by the helpers' binary names, through a local module, not by a type or another helper; a cycle ends", () => {
    using t = tree({
      "test/helpers.ts": HELPERS,
      "test/a/direct.test.ts": 'import { ZERODB, tempDir } from "../helpers.ts";\n',
      "test/a/multi.test.ts": 'import {\n  tempDir,\n  runZ,\n} from "../helpers.ts";\n',
      "test/a/temp.test.ts": 'import { tempDir } from "../helpers.ts";\nimport { x } from "../../src/a.ts";\n',
      "test/a/_server.ts": 'import { runZ } from "../helpers.ts";\nimport { y } from "./_cycle.ts";\n',
      "test/a/_cycle.ts": 'import { z } from "./_server.ts";\n',
      "test/a/via.test.ts": 'import { startServer } from "./_server.ts";\n',
      "test/a/types.test.ts": 'import type { ServerProcess } from "./_server.ts";\n',
      "test/a/cycle.test.ts": 'import { z } from "./_cycle.ts";\n',
      "test/a/path.test.ts": 'const bin = join(ROOT, "dist/zerodb");\n',
      "src/a.ts": 'export const x = "dist/zerodb";\n',
    });
    const seen = new Map<string, boolean>();
    const needs = Object.fromEntries(
      ["direct", "multi", "temp", "via", "types", "cycle", "path"].map((n) => [n, needsBinary(t.path, `test/a/${n}.test.ts`, seen)]),
    );
    expect(needs).toEqual({ direct: true, multi: true, temp: false, via: true, types: false, cycle: true, path: true });
  });

  test("in this tree: the search tests do not, the HTTP server tests do", () => {
    expect(needsBinary(ROOT, "test/search/query.test.ts")).toBe(false);
    expect(needsBinary(ROOT, "test/mcp/tools.e2e.test.ts")).toBe(true);
  });
});

describe("what npm test runs for its arguments", () => {
  // Made when the file loads and removed after its tests (a `using` here would end with this callback).
  const t = tree({
    "test/helpers.ts": HELPERS,
    "test/search/a.test.ts": 'import { tempDir } from "../helpers.ts";\n',
    "test/search/b.test.ts": "",
    "test/http/c.test.ts": 'import { ZERODB } from "../helpers.ts";\n',
    "test/cli/d.test.ts": 'import { ZERODB } from "../helpers.ts";\n',
  });
  afterAll(() => t[Symbol.dispose]());

  test("--help is its own, and nothing is built", () => {
    expect(planTests(["--fast", "--help"], t.path)).toEqual({ help: true, build: false, files: [], args: [] });
    expect(planTests(["-h"], t.path).help).toBe(true);
  });

  test("without --fast it builds and hands everything to bun test", () => {
    expect(planTests(["test/search", "-t", "x"], t.path)).toEqual({ help: false, build: true, files: [], args: ["test/search", "-t", "x"] });
  });

  test("--fast runs the whole fast tier, built because one file runs the binary", () => {
    expect(planTests(["--fast"], t.path)).toEqual({
      help: false,
      build: true,
      files: ["./test/http/c.test.ts", "./test/search/a.test.ts", "./test/search/b.test.ts"],
      args: [],
    });
  });

  test("--fast PATH narrows to that folder or file and skips the build when none there runs the binary", () => {
    const want = { help: false, build: false, files: ["./test/search/a.test.ts", "./test/search/b.test.ts"], args: [] };
    expect(planTests(["--fast", "test/search"], t.path)).toEqual(want);
    expect(planTests(["--fast", "./test/search/"], t.path)).toEqual(want);
    expect(planTests(["--fast", "test/search/b.test.ts", "--bail"], t.path)).toEqual({ ...want, files: ["./test/search/b.test.ts"], args: ["--bail"] });
    expect(planTests(["--fast", "test/http"], t.path).build).toBe(true);
  });

  test("a flag's value is not taken for a path", () => {
    expect(planTests(["--fast", "-t", "test/http", "test/search"], t.path)).toMatchObject({ build: false, args: ["-t", "test/http"] });
  });

  test("--fast PATH with no fast-tier test there says so and runs nothing", () => {
    expect(planTests(["--fast", "test/cli"], t.path)).toEqual({
      help: false,
      build: false,
      files: [],
      args: [],
      nothing: "no fast-tier test under test/cli (npm test -- PATH runs every tier)",
    });
  });

  test("the script prints its own help, not bun test's", () => {
    const p = Bun.spawnSync(["bun", "scripts/test.ts", "--help"], { cwd: ROOT, env: process.env });
    expect({ code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() }).toEqual({ code: 0, stdout: HELP, stderr: "" });
  });
});
