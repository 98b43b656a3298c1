/** stats per tenant and tenant isolation (I5) between two memories of one store. */
import { describe, expect } from "bun:test";
import { type Factory, contents, contractTest, counts, failure } from "./_subject.ts";

/** The tenant cases. */
export function tenantCases(factory: Factory): void {
  describe("tenants", () => {
    contractTest(factory, "stats counts one tenant's records and bytes only", async ({ a, b }) => {
      await a.append({
        session: "s",
        entries: [
          { role: "note", content: "12345" },
          { role: "note", content: "678" },
        ],
      });
      await a.factSet({ key: "k", value: "v" });
      await a.linkAdd({ url: "https://example.com" });
      await a.objectPut(new TextEncoder().encode("bytes"));
      await b.append({ session: "t", entries: [{ role: "note", content: "bob" }] });
      const sa = await a.stats();
      expect(sa.tenant).toBe(a.tenant);
      expect({ turns: sa.turns, sessions: sa.sessions, facts: sa.facts.count, links: sa.links.count, objects: sa.objects }).toEqual({
        turns: { count: 2, bytes: 8 },
        sessions: 1,
        facts: 1,
        links: 1,
        objects: { count: 1, bytes: 5 },
      });
      expect(await counts(b)).toMatchObject({ turns: 1, sessions: 1, facts: 0, links: 0, objects: 0 });
      expect((await b.stats()).turns.bytes).toBe(3);
    });

    contractTest(factory, "one tenant never sees another's turns, sessions, hits, facts or objects (I5)", async ({ a, b }) => {
      expect(a.tenant).not.toBe(b.tenant);
      await a.append({ session: "shared-name", entries: [{ role: "note", content: "alice private words" }] });
      await a.factSet({ key: "shared-key", value: "alice" });
      await a.linkAdd({ url: "https://example.com/alice", title: "private words" });
      await a.objectPut(new TextEncoder().encode("alice object"));
      expect(await contents(b, "shared-name")).toEqual([]);
      expect((await b.sessions({})).sessions).toEqual([]);
      expect((await b.search({ query: "private words" })).hits).toEqual([]);
      expect((await failure(b.factGet({ key: "shared-key" }))).code).toBe("not_found");
      expect((await b.factList({})).facts).toEqual([]);
      expect((await b.objectList()).objects).toEqual([]);
      // Bob's forget of the same names hides nothing of Alice's, and (matching nothing of his) writes nothing.
      expect(await b.forget({ selector: { session: "shared-name" } })).toEqual({ lsn: null, hidden: 0, dry_run: false });
      expect(await b.forget({ selector: { fact: "shared-key" } })).toEqual({ lsn: null, hidden: 0, dry_run: false });
      expect(await contents(a, "shared-name")).toEqual(["alice private words"]);
      expect((await a.factGet({ key: "shared-key" })).value).toBe("alice");
    });

    contractTest(factory, "the same idempotency key in two tenants names two operations", async ({ a, b }) => {
      const ra = await a.append({ session: "s", entries: [{ role: "note", content: "from alice", idem_key: "same" }] });
      const rb = await b.append({ session: "s", entries: [{ role: "note", content: "from bob", idem_key: "same" }] });
      expect(rb.entries[0]).toEqual({ lsn: expect.any(Number), duplicate: false });
      expect(rb.entries[0]!.lsn).not.toBe(ra.entries[0]!.lsn);
      expect(await contents(b, "s")).toEqual(["from bob"]);
    });
  });
}
