/** Every turn of a session at a point, read page by page through a Memory (any engine, or HTTP). */
import type { Turn } from "../schema/results.ts";
import type { Memory } from "../store/types.ts";

/** Every turn of a session as of `asOf` (or now), in LSN order. */
export async function allTurns(m: Memory, session: string, asOf: string | undefined): Promise<Turn[]> {
  const turns: Turn[] = [];
  let after = 0;
  for (;;) {
    const page = await m.read({ session, after, limit: 1000, ...(asOf !== undefined ? { as_of: asOf } : {}) });
    turns.push(...page.turns);
    if (page.next === null) return turns;
    after = page.next;
  }
}
