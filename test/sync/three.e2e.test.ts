/**
 * Three machines (issue 30, DESIGN.md 16): three local stores in homes of
 * their own, one real `zerodb serve` (SQLite) on loopback. They write while
 * apart, sync in several orders, and end with every record once on every
 * replica, a fact with one latest value on all three, a forget made on one
 * reaching the other two, and every search hit of a replicated turn naming
 * the machine that wrote it, on each door (CLI, HTTP, MCP).
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../helpers.ts";
import { startMcp } from "../mcp/_client.ts";
import { machine, teamServer, type Machine } from "./_machines.ts";

type Hit = { lsn: number; session: string; origin?: { store: string; lsn: number } };

/** Every turn of every session, sorted within each session (arrival order differs between replicas). */
async function sorted(m: Machine): Promise<Record<string, string[]>> {
  const turns = await m.turns();
  return Object.fromEntries(Object.entries(turns).map(([s, list]) => [s, [...list].sort()]));
}

describe("three machines", () => {
  test("writes apart, syncs in several orders: every record once everywhere, one fact value, a forget reaches all", async () => {
    using dir = tempDir();
    await using server = await teamServer(dir.path);
    const { tok } = server;
    const [a, b, c] = ["a", "b", "c"].map((n) => machine(dir.path, n)) as [Machine, Machine, Machine];
    const names = new Map([
      [a, "A"],
      [b, "B"],
      [c, "C"],
    ]);
    // Apart: each writes its own session, the shared one, and the same fact key.
    for (const [m, tag] of names) {
      for (let i = 0; i < 3; i++) expect((await m.run(["append", "--session", "shared", `${tag} shared turn ${i}`])).code).toBe(0);
      expect((await m.run(["append", "--session", `only/${tag}`, `${tag} private quokka${tag} note`])).code).toBe(0);
      expect((await m.run(["fact", "set", "lang", tag.toLowerCase()])).code).toBe(0);
    }
    const ids = new Map<Machine, string>();
    const syncAll = async (order: Machine[]) => {
      for (const m of order) ids.set(m, (await m.sync(server.url, tok)).store as string);
    };
    // Round one in the order A, C, B: the server gets B's value of lang last.
    await syncAll([a, c, b]);
    // More writes while the others have not heard, then other orders.
    expect((await c.run(["append", "--session", "shared", "C late turn"])).code).toBe(0);
    await syncAll([b, a, c]);
    await syncAll([c, b, a]);
    await syncAll([a, b, c]);

    const want = {
      shared: ["A", "B", "C"]
        .flatMap((t) => [0, 1, 2].map((i) => `${t} shared turn ${i}`))
        .concat("C late turn")
        .sort(),
      "only/A": ["A private quokkaA note"],
      "only/B": ["B private quokkaB note"],
      "only/C": ["C private quokkaC note"],
    };
    for (const m of [a, b, c]) {
      expect(await sorted(m)).toEqual(want);
      expect((await m.json<{ value: string }>(["fact", "get", "lang"])).value).toBe("b");
    }
    expect((await a.json<{ value: string }>(["fact", "get", "lang", "--url", server.url, "--token-file", tok])).value).toBe("b");
    // Nothing left to move anywhere.
    for (const m of [a, b, c]) expect(await m.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });

    // Each hit of a replicated turn names its writer, on every door: CLI --json on B, HTTP (the server), MCP on C.
    const aLsn = (await a.json<{ hits: Hit[] }>(["search", "quokkaA"])).hits[0]!;
    expect(aLsn.origin).toBeUndefined(); // A's own turn, on A
    const onB = (await b.json<{ hits: Hit[] }>(["search", "quokkaA"])).hits;
    expect(onB.map((h) => h.origin)).toEqual([{ store: ids.get(a)!, lsn: aLsn.lsn }]);
    const onServer = (await b.json<{ hits: Hit[] }>(["search", "quokkaA", "--url", server.url, "--token-file", tok])).hits;
    expect(onServer.map((h) => h.origin)).toEqual([{ store: ids.get(a)!, lsn: aLsn.lsn }]);
    {
      await using mcp = await startMcp({ home: c.home });
      const r = await mcp.call("search", { query: "quokkaA" });
      const hits = (r.structuredContent as { hits: Hit[] }).hits;
      expect(hits.map((h) => h.origin)).toEqual([{ store: ids.get(a)!, lsn: aLsn.lsn }]);
      expect((r.content[0] as { text: string }).text).toContain(`written on store ${ids.get(a)} as #${aLsn.lsn}`);
    }

    // A forget on B of A's private session reaches A and C (and the server).
    expect((await b.run(["forget", "--session", "only/A"])).code).toBe(0);
    await syncAll([b, c, a]);
    const { "only/A": _gone, ...rest } = want;
    for (const m of [a, b, c]) {
      expect(await sorted(m)).toEqual(rest);
      expect((await m.json<{ hits: unknown[] }>(["search", "quokkaA"])).hits).toEqual([]);
    }
    expect((await a.json<{ hits: unknown[] }>(["search", "quokkaA", "--url", server.url, "--token-file", tok])).hits).toEqual([]);
    for (const m of [a, b, c]) expect(await m.sync(server.url, tok)).toMatchObject({ pushed: 0, pulled: 0 });
  }, 60_000);
});
