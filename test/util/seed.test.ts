import { afterEach, expect, test } from "bun:test";
import { seeded, testSeed } from "../seed.ts";

const saved = process.env.ZERODB_TEST_SEED;
afterEach(() => {
  if (saved === undefined) delete process.env.ZERODB_TEST_SEED;
  else process.env.ZERODB_TEST_SEED = saved;
});

test("ZERODB_TEST_SEED replays the same random choices", async () => {
  process.env.ZERODB_TEST_SEED = "1234";
  expect(testSeed()).toBe(1234);
  const draw = seeded(async (random) => [random(), random(), random()]);
  expect(await draw()).toEqual(await draw());
});

test("a failing seeded body names its seed in the message", async () => {
  process.env.ZERODB_TEST_SEED = "77";
  const body = seeded(async () => {
    throw new Error("boom");
  });
  await expect(body()).rejects.toThrow("boom\n(replay with ZERODB_TEST_SEED=77)");
});
