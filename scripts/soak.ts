export {};
/**
 * `bun run soak`: the fault suite at length: a minute and a half of eight
 * mixed processes, 200 kill -9 rounds, the rest of test/faults, and the
 * fuzz of the store and of every door at ten times its CI runs.
 */
const proc = Bun.spawn(["bun", "scripts/test.ts", "test/faults", "test/store/crash.test.ts", "test/fuzz", "test/security", ...process.argv.slice(2)], {
  stdout: "inherit",
  stderr: "inherit",
  env: {
    ...process.env,
    ZERODB_SOAK_SECONDS: process.env.ZERODB_SOAK_SECONDS ?? "90",
    ZERODB_KILL_ROUNDS: process.env.ZERODB_KILL_ROUNDS ?? "200",
    ZERODB_FUZZ_RUNS: process.env.ZERODB_FUZZ_RUNS ?? "3000",
  },
});
process.exit(await proc.exited);
