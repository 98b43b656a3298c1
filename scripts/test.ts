/**
 * `npm test`: builds dist/zerodb (the end-to-end tests drive it), runs
 * `bun test`, and closes with one line `tests: N passed, N failed`.
 * Extra arguments go to `bun test` (a file filter, -t NAME...).
 */
import { $ } from "bun";

const build = await $`bun scripts/build.ts --quiet`.nothrow();
if (build.exitCode !== 0) {
  console.error("build failed");
  process.exit(1);
}

// Tests spawn real processes (serve, mcp, hook) and kill them in loops: give each room.
const proc = Bun.spawn(["bun", "test", "--timeout", "120000", ...process.argv.slice(2)], { stdout: "inherit", stderr: "pipe", env: process.env });
let tail = "";
const decoder = new TextDecoder();
for await (const chunk of proc.stderr) {
  process.stderr.write(chunk);
  tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4096);
}
const code = await proc.exited;
const passed = Number(/^\s*(\d+) pass$/m.exec(tail)?.[1] ?? 0);
const failed = Number(/^\s*(\d+) fail$/m.exec(tail)?.[1] ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(code !== 0 ? code : failed > 0 || passed === 0 ? 1 : 0);
