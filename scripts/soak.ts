export {};
/**
 * `bun run soak`: the fault suite at length: a minute and a half of eight
 * mixed processes, 200 kill -9 rounds, and the rest of test/faults.
 */
const proc = Bun.spawn(["bun", "scripts/test.ts", "test/faults", "test/store/crash.test.ts", ...process.argv.slice(2)], {
  stdout: "inherit",
  stderr: "inherit",
  env: { ...process.env, ZERODB_SOAK_SECONDS: process.env.ZERODB_SOAK_SECONDS ?? "90", ZERODB_KILL_ROUNDS: process.env.ZERODB_KILL_ROUNDS ?? "200" },
});
process.exit(await proc.exited);
