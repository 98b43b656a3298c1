/**
 * `npm test`: builds dist/zerodb (the end-to-end tests drive it), runs
 * `bun test`, and closes with one line `tests: N passed, N failed in 3m 41s`
 * (the wall time of the whole run, build included).
 * `npm run test:fast` (`--fast`): only the fast tier of scripts/test/tiers.ts,
 * under the paths given, built only when one of its files runs the binary.
 * `--help` says so; other arguments go to `bun test` (scripts/test/plan.ts).
 */
import { resolve } from "node:path";
import { $ } from "bun";
import { HELP, planTests } from "./test/plan.ts";

const t0 = performance.now();
const ROOT = resolve(import.meta.dir, "..");
const plan = planTests(process.argv.slice(2), ROOT);
if (plan.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (plan.nothing) {
  console.error(plan.nothing);
  process.exit(1);
}

if (plan.build) {
  const build = await $`bun scripts/build.ts --quiet`.cwd(ROOT).nothrow();
  if (build.exitCode !== 0) {
    console.error("build failed");
    process.exit(1);
  }
}

// Tests spawn real processes (serve, mcp, hook) and kill them in loops: give
// each room. A test whose usual time comes within a third of this sets its own.
const proc = Bun.spawn(["bun", "test", "--timeout", "120000", ...plan.files, ...plan.args], { cwd: ROOT, stdout: "inherit", stderr: "pipe", env: process.env });
let tail = "";
const decoder = new TextDecoder();
for await (const chunk of proc.stderr) {
  process.stderr.write(chunk);
  tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4096);
}
const code = await proc.exited;
const passed = Number(/^\s*(\d+) pass$/m.exec(tail)?.[1] ?? 0);
const failed = Number(/^\s*(\d+) fail$/m.exec(tail)?.[1] ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed in ${duration(performance.now() - t0)}`);
process.exit(code !== 0 ? code : failed > 0 || passed === 0 ? 1 : 0);

/** Milliseconds as "48.2 s" under a minute, "3m 41s" from one. */
function duration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
}
