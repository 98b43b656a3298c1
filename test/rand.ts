/**
 * A small seeded generator (mulberry32): fast, the same numbers on every
 * machine for a seed. Test fixtures, the crash tests' kill points
 * (test/seed.ts) and the bench's generated corpora all draw from it.
 */

/** A seeded source of random choices. */
export interface Rand {
  /** A float in [0, 1). */
  next(): number;
  int(n: number): number;
  pick<T>(xs: readonly T[]): T;
  /** `n` characters drawn from `set`. */
  chars(set: string, n: number): string;
}

/** mulberry32: 32-bit state, good enough to make values that are not hand-tuned. */
export function rand(seed: number): Rand {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    pick: (xs) => xs[int(xs.length)]!,
    chars: (set, n) => {
      let s = "";
      for (let i = 0; i < n; i++) s += set[int(set.length)];
      return s;
    },
  };
}
