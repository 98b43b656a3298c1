/** The JIT policy per command (src/cli/jit.ts): short runs keep the start-up policy, everything else gets the normal one. */
import { describe, expect, test } from "bun:test";
import { settleJitPolicy } from "../../src/cli/jit.ts";

/** The scales `settleJitPolicy(command)` set. */
function scalesFor(command: string | undefined): number[] {
  const set: number[] = [];
  settleJitPolicy(command, (scale) => set.push(scale));
  return set;
}

describe("settleJitPolicy", () => {
  test("the hooks, version and mcp keep the binary's start-up policy", () => {
    for (const command of ["hook", "version", "mcp"]) expect({ command, set: scalesFor(command) }).toEqual({ command, set: [] });
  });

  test("servers, backfills and every other command return to the normal policy", () => {
    for (const command of ["serve", "ui", "capture", "import", "export", "sync", "search", "stats", "doctor"]) {
      expect({ command, set: scalesFor(command) }).toEqual({ command, set: [1] });
    }
    expect(scalesFor(undefined)).toEqual([1]);
  });
});
