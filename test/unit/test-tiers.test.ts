/** The fast tier of `npm run test:fast` (scripts/test/tiers.ts) stays in step with the test tree. */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { FAST_DIRS, SLOW_FILES, fastFiles } from "../../scripts/test/tiers.ts";

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
      "test/connect/clients.test.ts",
      "test/fuzz/store.fuzz.test.ts",
      "test/faults/mixed.test.ts",
      "test/release/install.test.ts",
    ]) {
      expect({ slow, fast: fast.includes(slow) }).toEqual({ slow, fast: false });
    }
    for (const quick of ["test/unit/layers.test.ts", "test/search/query.test.ts", "test/store/contract/sqlite.contract.test.ts", "test/http/app.test.ts"]) {
      expect({ quick, fast: fast.includes(quick) }).toEqual({ quick, fast: true });
    }
  });
});
