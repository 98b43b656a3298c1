/**
 * `bun run bench` answers --help and bad flags with its usage, never a stack
 * trace, and refuses a section that does not exist before building anything.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

function bench(...args: string[]) {
  const p = Bun.spawnSync([process.execPath, "scripts/bench.ts", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

test("--help prints the usage and every section, and exits 0", () => {
  const r = bench("--help");
  expect(r.code).toBe(0);
  expect(r.out).toContain("usage: bun run bench");
  for (const name of ["machine", "store", "search", "recall", "postgres (only with --only)"]) expect(r.out).toContain(name);
});

test("an unknown flag is refused with the usage, no stack trace", () => {
  const r = bench("--bogus");
  expect(r.code).toBe(2);
  expect(r.err).toContain("Unknown option '--bogus'");
  expect(r.err).toContain("usage: bun run bench");
  expect(r.err).not.toContain("    at ");
});

test("an unknown section is refused by name before anything runs", () => {
  const r = bench("--only", "store,nope");
  expect(r.code).toBe(2);
  expect(r.err).toContain("no section named nope (--only)");
  expect(r.out).not.toContain("zerodb bench");
});
