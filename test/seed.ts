/**
 * Seeds for a test's random choices (kill points, delays): ZERODB_TEST_SEED
 * replays a run, otherwise each run draws a fresh seed, so runs differ but a
 * failure can be replayed: `seeded` names the seed in a failure's message.
 */
import { wholeNumber } from "../src/util/whole-number.ts";
import { rand } from "./rand.ts";

/** The seed of this run: ZERODB_TEST_SEED when set (its low 32 bits), else a random 32-bit number. */
export function testSeed(): number {
  const given = process.env.ZERODB_TEST_SEED;
  // mulberry32 keeps 32 bits of the seed.
  if (given !== undefined && given !== "") return wholeNumber("ZERODB_TEST_SEED", given) >>> 0;
  return crypto.getRandomValues(new Uint32Array(1))[0]!;
}

/**
 * A test body given a random source seeded by testSeed(), drawn when the
 * test starts; when it throws, the error's message ends with the seed to
 * replay the run with.
 */
export function seeded<T>(body: (random: () => number) => Promise<T>): () => Promise<T> {
  return async () => {
    const seed = testSeed();
    try {
      return await body(rand(seed).next);
    } catch (err) {
      if (err instanceof Error) err.message += `\n(replay with ZERODB_TEST_SEED=${seed})`;
      throw err;
    }
  };
}
