/**
 * The contract of `exportTape({after})` (issue 20), one for both engines:
 * run by export-after.test.ts (SQLite) and postgres/export-after.test.ts.
 */
import { expect } from "bun:test";
import type { Store } from "../../src/store/types.ts";

/** The LSNs an export yields. */
export async function lsns(store: Store, opts: { tenant?: string; after?: number }): Promise<number[]> {
  const out: number[] = [];
  for await (const r of store.exportTape(opts)) out.push(r.lsn);
  return out;
}

/** Six records, two tenants, a forget: lsn 1-3 and 5 are local's, 4 other's, 6 local's forget of lsn 2. */
async function seed(store: Store): Promise<void> {
  const m = store.memory("local");
  await m.append({ session: "a", entries: [{ role: "user", content: "one" }] });
  await m.append({ session: "gone", entries: [{ role: "user", content: "two" }] });
  await m.factSet({ key: "k", value: 3 });
  await store.memory("other").append({ session: "o", entries: [{ role: "user", content: "four" }] });
  await m.linkAdd({ url: "https://example.com/5" });
  await m.forget({ selector: { session: "gone" } });
}

/** Seeds an empty store, then checks what exports after an LSN yield. */
export async function exportAfterContract(store: Store): Promise<void> {
  await seed(store);
  expect(await lsns(store, {})).toEqual([1, 2, 3, 4, 5, 6]);
  expect(await lsns(store, { after: 0 })).toEqual([1, 2, 3, 4, 5, 6]);
  expect(await lsns(store, { after: 3 })).toEqual([4, 5, 6]);
  expect(await lsns(store, { after: 3, tenant: "local" })).toEqual([5, 6]);
  expect(await lsns(store, { after: 6 })).toEqual([]);
  expect(await lsns(store, { after: 99 })).toEqual([]);
  // The records are those of a whole export, a forgotten one as its tombstone.
  const whole = [];
  for await (const r of store.exportTape({})) whole.push(r);
  const tail = [];
  for await (const r of store.exportTape({ after: 1 })) tail.push(r);
  expect(tail).toEqual(whole.slice(1));
}
