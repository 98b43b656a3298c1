/** forget per selector kind, its dry run, the cutoff of I8, and a forget that matches nothing writing nothing (issue 17). */
import { describe, expect } from "bun:test";
import type { Selector } from "../../../src/schema/ops.ts";
import type { Memory } from "../../../src/store/types.ts";
import { type Factory, contents, contractTest, counts, failure } from "./_subject.ts";

/** A small memory with one of everything; what each selector should hide is named by it. */
async function fill(m: Memory) {
  const turns = (
    await m.append({
      session: "p/x",
      entries: [
        { role: "note", content: "xray one" },
        { role: "note", content: "xray two" },
      ],
    })
  ).entries.map((e) => e.lsn);
  await m.append({ session: "p/y", entries: [{ role: "note", content: "yankee" }] });
  await m.append({ session: "keep", entries: [{ role: "note", content: "kept" }] });
  await m.factSet({ key: "f/a", value: 1 });
  await m.factSet({ key: "f/b", value: 2 });
  await m.factSet({ key: "g", value: 3 });
  const link = await m.linkAdd({ url: "https://example.com/doc", title: "doc" });
  const object = (await m.objectPut(new TextEncoder().encode("object bytes"), { name: "o.txt", type: "text/plain" })).object;
  return { turn: turns[0]!, link: link.lsn, object };
}

/** What a tenant shows: sessions with their turns, facts, links and objects. */
async function view(m: Memory) {
  const sessions = (await m.sessions({})).sessions.map((s) => `${s.name}:${s.turns}`);
  const facts = (await m.factList({})).facts.map((f) => f.key);
  const s = await counts(m);
  return { sessions, facts, links: s.links, objects: (await m.objectList()).objects.length };
}

type Filled = Awaited<ReturnType<typeof fill>>;

/** Each selector kind: the selector, the count it hides, and what is left after it. */
const KINDS: Record<string, { selector: (f: Filled) => Selector; hidden: number; left: Partial<Awaited<ReturnType<typeof view>>> }> = {
  session: { selector: () => ({ session: "p/x" }), hidden: 2, left: { sessions: ["keep:1", "p/y:1"] } },
  session_prefix: { selector: () => ({ session_prefix: "p/" }), hidden: 3, left: { sessions: ["keep:1"] } },
  turn: { selector: (f) => ({ turn: f.turn }), hidden: 1, left: { sessions: ["keep:1", "p/x:1", "p/y:1"] } },
  fact: { selector: () => ({ fact: "f/a" }), hidden: 1, left: { facts: ["f/b", "g"] } },
  fact_prefix: { selector: () => ({ fact_prefix: "f/" }), hidden: 2, left: { facts: ["g"] } },
  object: { selector: (f) => ({ object: f.object }), hidden: 1, left: { objects: 0 } },
  link: { selector: (f) => ({ link: f.link }), hidden: 1, left: { links: 0 } },
};

/** The forget cases. */
export function forgetCases(factory: Factory): void {
  describe("forget", () => {
    for (const [kind, { selector, hidden, left }] of Object.entries(KINDS)) {
      contractTest(
        factory,
        `${kind}: hides what it names and nothing else; its dry run counts the same and writes nothing; again, it matches nothing and writes nothing`,
        async ({ a }) => {
          const sel = selector(await fill(a));
          const untouched = await view(a);
          const last = (await counts(a)).last_lsn;
          expect(await a.forget({ selector: sel, dry_run: true })).toEqual({ lsn: null, hidden, dry_run: true });
          expect(await view(a)).toEqual(untouched);
          expect((await counts(a)).last_lsn).toBe(last);
          const done = await a.forget({ selector: sel });
          expect(done).toEqual({ lsn: expect.any(Number), hidden, dry_run: false });
          expect(done.lsn!).toBeGreaterThan(last);
          expect(await view(a)).toEqual({ ...untouched, ...left });
          // The same selector again matches nothing: no forget record, so the next LSN and the forget count stay.
          const after = await counts(a);
          expect(await a.forget({ selector: sel })).toEqual({ lsn: null, hidden: 0, dry_run: false });
          expect(await counts(a)).toEqual(after);
          expect(await view(a)).toEqual({ ...untouched, ...left });
        },
      );
    }

    contractTest(factory, "a forget matching nothing writes nothing: lsn null, hidden 0, the same last_lsn and stats (issue 17)", async ({ a }) => {
      await fill(a);
      const before = await counts(a);
      const shown = await view(a);
      const nothing: Selector[] = [
        { session: "does/not/exist" },
        { session_prefix: "nope/" },
        { turn: before.last_lsn + 1000 },
        { fact: "no-such-key" },
        { fact_prefix: "nope/" },
        { object: `sha256:${"0".repeat(64)}` },
        { link: before.last_lsn + 1000 },
        { before: "2000-01-01T00:00:00.000Z" },
      ];
      for (const selector of nothing) expect(await a.forget({ selector })).toEqual({ lsn: null, hidden: 0, dry_run: false });
      expect(await counts(a)).toEqual(before);
      expect(await view(a)).toEqual(shown);
      // The next write takes the very next LSN: the empty forgets used none.
      const next = await a.append({ session: "later", entries: [{ role: "note", content: "after" }] });
      expect(next.entries[0]!.lsn).toBe(before.last_lsn + 1);
    });

    contractTest(factory, "forgotten content is gone from read, search and fact_get; a later write is visible (I8)", async ({ a }) => {
      await a.append({ session: "s", entries: [{ role: "note", content: "secret plan alpha" }] });
      await a.factSet({ key: "plan", value: "alpha" });
      await a.forget({ selector: { session: "s" } });
      await a.forget({ selector: { fact: "plan" } });
      expect(await contents(a, "s")).toEqual([]);
      expect((await a.search({ query: "alpha" })).hits).toEqual([]);
      expect((await failure(a.factGet({ key: "plan" }))).code).toBe("not_found");
      const later = await a.append({ session: "s", entries: [{ role: "note", content: "new plan beta" }] });
      await a.factSet({ key: "plan", value: "beta" });
      expect(await contents(a, "s")).toEqual(["new plan beta"]);
      expect((await a.factGet({ key: "plan" })).value).toBe("beta");
      // The session's listing counts only what is visible.
      const lsn = later.entries[0]!.lsn;
      expect((await a.sessions({})).sessions).toEqual([{ name: "s", turns: 1, first_lsn: lsn, last_lsn: lsn, bytes: 13 }]);
    });

    contractTest(factory, "another tenant's turn LSN, or everything before a time, hides nothing of that tenant's (I5)", async ({ a, b }) => {
      const [theirs] = (await b.append({ session: "x", entries: [{ role: "note", content: "theirs" }] })).entries.map((e) => e.lsn);
      await a.append({ session: "s", entries: [{ role: "note", content: "mine" }] });
      expect(await a.forget({ selector: { turn: theirs! } })).toEqual({ lsn: null, hidden: 0, dry_run: false });
      expect((await a.forget({ selector: { before: new Date(Date.now() + 60_000).toISOString() } })).hidden).toBe(1);
      expect(await contents(a, "s")).toEqual([]);
      expect(await contents(b, "x")).toEqual(["theirs"]);
    });

    contractTest(factory, "before: everything of the tenant older than a time, nothing newer", async ({ a }) => {
      await a.append({ session: "s", entries: [{ role: "note", content: "old" }] });
      await a.factSet({ key: "old", value: 1 });
      const cut = Date.now() + 1;
      // Waits for the clock to pass the cut (the store's times are milliseconds), so the next write is newer.
      while (Date.now() <= cut) await Bun.sleep(1);
      await a.append({ session: "s", entries: [{ role: "note", content: "new" }] });
      const before = new Date(cut).toISOString();
      expect(await a.forget({ selector: { before }, dry_run: true })).toEqual({ lsn: null, hidden: 2, dry_run: true });
      expect((await a.forget({ selector: { before } })).hidden).toBe(2);
      expect(await contents(a, "s")).toEqual(["new"]);
      expect((await a.factList({})).facts).toEqual([]);
    });

    contractTest(factory, "a selector must name exactly one thing, and a valid one", async ({ a }) => {
      expect(await failure(a.forget({ selector: { session: "s", fact: "f" } }))).toEqual({ code: "invalid_input", field: "selector" });
      expect(await failure(a.forget({ selector: {} }))).toEqual({ code: "invalid_input", field: "selector" });
      for (const selector of [{ session_prefix: "" }, { turn: 0 }, { before: "yesterday" }, { bogus: 1 }]) {
        const { code, field } = await failure(a.forget({ selector } as never));
        expect({ selector, code, field: field?.split(".")[0] }).toEqual({ selector, code: "invalid_input", field: "selector" });
      }
      expect((await counts(a)).last_lsn).toBe(0);
    });
  });
}
