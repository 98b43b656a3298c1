/**
 * The tape export and import (DESIGN.md 6.3 `zerodb export` / `import`, 12:
 * "`zerodb export` from a laptop imports into the team server"): an export
 * restored into an empty store of the same engine gives back every record
 * with its LSN, and import obeys the rules of live writes (I6).
 */
import { describe, expect } from "bun:test";
import type { Store } from "../../../src/store/types.ts";
import { type Factory, contractTest, failure } from "./_subject.ts";

type Transfer = Pick<Store, "exportTape" | "importTape" | "check">;

async function collect(store: Transfer): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const r of store.exportTape()) out.push(r);
  return out;
}

/** Records as they come back from a JSONL file. */
async function* feed(records: unknown[]): AsyncIterable<unknown> {
  for (const r of records) yield JSON.parse(JSON.stringify(r));
}

const ts = new Date("2026-12-01T00:00:00.000Z").toISOString();

/** The export and import cases. */
export function transferCases(factory: Factory): void {
  describe("export and import", () => {
    contractTest(
      factory,
      "a round trip into an empty store keeps every record, LSN, forget and idempotency key",
      async ({ a, b, transfer }) => {
        await a.append({
          session: "p/one",
          entries: [
            { role: "user", content: "hello wörld", meta: { x: [1, 2] }, idem_key: "i1" },
            { role: "assistant", content: "hi" },
          ],
        });
        await a.factSet({ key: "k", value: { deep: true } });
        await a.factSet({ key: "k", value: "newer", idem_key: "f1" });
        await a.append({ session: "gone", entries: [{ role: "note", content: "secret", idem_key: "g1" }] });
        await a.forget({ selector: { session: "gone" } });
        await b.append({ session: "o", entries: [{ role: "note", content: "theirs" }] });
        const exported = await collect(transfer!);
        await using dst = await factory();
        expect(await dst.transfer!.importTape(feed(exported))).toEqual({ records: exported.length, last_lsn: 7 });
        expect(await collect(dst.transfer!)).toEqual(exported);
        const m = dst.a;
        expect((await m.read({ session: "p/one" })).turns.map((t) => [t.lsn, t.content])).toEqual([
          [1, "hello wörld"],
          [2, "hi"],
        ]);
        expect(await m.factGet({ key: "k" })).toEqual({ key: "k", value: "newer", lsn: 4 });
        // The prompt holds the word; the reply after it is a hit that follows it.
        expect((await m.search({ query: "wörld" })).hits.map((h) => [h.lsn, h.follows])).toEqual([
          [1, undefined],
          [2, 1],
        ]);
        expect((await m.search({ query: "secret" })).hits).toEqual([]);
        expect((await dst.b.read({ session: "o" })).turns.map((t) => t.content)).toEqual(["theirs"]);
        // I3 survives: retries are recognized, a forgotten key stays reserved.
        const retry = { role: "user" as const, content: "hello wörld", meta: { x: [1, 2] }, idem_key: "i1" };
        expect((await m.append({ session: "p/one", entries: [retry] })).entries[0]).toEqual({ lsn: 1, duplicate: true });
        expect((await m.append({ session: "gone", entries: [{ role: "note", content: "secret", idem_key: "g1" }] })).entries[0]).toEqual({
          lsn: 5,
          duplicate: true,
        });
        // New writes continue after the imported LSNs (I1).
        expect((await m.append({ session: "n", entries: [{ role: "note", content: "next" }] })).entries[0]!.lsn).toBe(8);
        expect((await dst.transfer!.check({ full: true })).ok).toBe(true);
      },
      { needs: "transfer" },
    );

    contractTest(
      factory,
      "import refuses bad records, records out of order and another store's records into one that holds some, writing nothing",
      async ({ a, transfer }) => {
        const t = transfer!;
        const bad = [{ lsn: 1, tenant: a.tenant, ts, kind: "turn", session: "s", role: "robot", content: "x", meta: {} }];
        expect(await failure(t.importTape(feed(bad)))).toEqual({ code: "invalid_input", field: "line 1.role" });
        const order = [
          { lsn: 2, tenant: a.tenant, ts, kind: "fact", key: "a", value: 1 },
          { lsn: 2, tenant: a.tenant, ts, kind: "fact", key: "b", value: 1 },
        ];
        expect((await failure(t.importTape(feed(order)))).field).toBe("line 2.lsn");
        expect(await collect(t)).toEqual([]);
        await a.factSet({ key: "x", value: 1 });
        // Into a store that holds records, only records that continue it (issue 20): another store's record 1 is a conflict.
        const foreign = [{ lsn: 1, tenant: a.tenant, ts, kind: "fact", key: "y", value: 2 }];
        expect((await failure(t.importTape(feed(foreign)))).code).toBe("conflict");
        expect((await collect(t)).length).toBe(1);
      },
      { needs: "transfer" },
    );

    contractTest(
      factory,
      "a crafted record with a bad session name, meta, tenant, key or URL is refused naming it, and nothing is written (I6)",
      async ({ a, transfer }) => {
        const tenant = a.tenant;
        const cases: [object, string, string][] = [
          [{ lsn: 1, tenant, ts, kind: "turn", session: "a/../b", role: "note", content: "x", meta: {} }, "line 1.session", "invalid_input"],
          [{ lsn: 1, tenant, ts, kind: "turn", session: "s", role: "note", content: "x", meta: { deep: "m".repeat(20_000) } }, "line 1.meta", "too_large"],
          [{ lsn: 1, tenant: "Bad Tenant", ts, kind: "fact", key: "k", value: 1 }, "line 1.tenant", "invalid_input"],
          [{ lsn: 1, tenant, ts, kind: "fact", key: "k/", value: 1 }, "line 1.key", "invalid_input"],
          [{ lsn: 1, tenant, ts, kind: "link", url: "javascript:alert(1)", title: null, note: null }, "line 1.url", "invalid_input"],
        ];
        for (const [record, field, code] of cases) expect(await failure(transfer!.importTape(feed([record])))).toEqual({ code, field });
        expect(await collect(transfer!)).toEqual([]);
      },
      { needs: "transfer" },
    );
  });
}
