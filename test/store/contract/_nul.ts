/**
 * U+0000 on every engine (DESIGN.md 12, issue 29 item 1): text a user can
 * store comes back byte-exact with NUL in it (PostgreSQL's text and jsonb
 * cannot hold it, so that engine encodes it), and a name that cannot hold it
 * is refused with a typed error naming the field, alike on every engine.
 */
import { describe, expect } from "bun:test";
import { type Factory, contents, contractTest, counts, failure } from "./_subject.ts";

/** Text with NUL between words, and the noncharacters PostgreSQL's encoding of NUL uses. */
const CAT = "ELF\u0000\u0001binary\u0000\u0000quokka header\u0000tail \uFDD0\uFDD1\uFDD1\uFDD0 end\u0000";

/** The NUL cases. */
export function nulCases(factory: Factory): void {
  describe("U+0000 (issue 29)", () => {
    contractTest(factory, "a turn's content and meta keep their NULs; search finds the words around one and its snippet holds it", async ({ a }) => {
      const meta = { "tool\u0000name": "cat\u0000x", nested: ["\u0000", { "\uFDD0": "\\u0000 is not a NUL" }] };
      const [lsn] = (await a.append({ session: "bin", entries: [{ role: "tool", content: CAT, meta }] })).entries.map((e) => e.lsn);
      await a.append({ session: "bin", entries: [{ role: "note", content: "the line after" }] });
      const { turns } = await a.read({ session: "bin" });
      expect(turns.map((t) => [t.content, t.meta])).toEqual([
        [CAT, meta],
        ["the line after", {}],
      ]);
      expect(await contents(a, "bin")).toEqual([CAT, "the line after"]);
      for (const query of ["quokka", "binary", "tail", "end"]) {
        const hits = (await a.search({ query })).hits;
        expect(
          hits.map((h) => h.lsn),
          query,
        ).toEqual([lsn!]);
      }
      expect((await a.search({ query: "quokka" })).hits[0]!.snippet).toBe(CAT.replace("quokka", "[quokka]"));
      // A query holding a NUL is words around it.
      expect((await a.search({ query: "binary\u0000quokka" })).hits.map((h) => h.lsn)).toEqual([lsn!]);
      expect((await a.sessions({})).sessions).toEqual([expect.objectContaining({ name: "bin", turns: 2, bytes: Buffer.byteLength(CAT) + 14 })]);
    });

    contractTest(factory, "fact values and link titles, notes and URLs keep their NULs; link_list filters by a prefix holding one", async ({ a }) => {
      const value = { "k\u0000": ["v\u0000", "\uFDD1"], s: "\u0000" };
      await a.factSet({ key: "bin/fact", value });
      await a.factSet({ key: "bin/plain", value: "a\u0000b" });
      expect((await a.factGet({ key: "bin/fact" })).value).toEqual(value);
      expect((await a.factList({ prefix: "bin/" })).facts.map((f) => f.value)).toEqual([value, "a\u0000b"]);
      expect((await a.factHistory({ key: "bin/plain" })).values.map((v) => v.value)).toEqual(["a\u0000b"]);
      const url = "https://example.com/a\u0000b";
      const { lsn } = await a.linkAdd({ url, title: "title\u0000wombat", note: "note\u0000\uFDD0" });
      await a.linkAdd({ url: "https://example.com/a\uFDD0" });
      expect((await a.linkList({ prefix: "https://example.com/a\u0000" })).links).toEqual([
        { lsn, url, title: "title\u0000wombat", note: "note\u0000\uFDD0", ts: expect.any(String) },
      ]);
      expect((await a.linkList({ prefix: "https://example.com/a\u0000c" })).links).toEqual([]);
      expect((await a.search({ query: "wombat" })).hits.map((h) => h.lsn)).toEqual([lsn]);
    });

    contractTest(factory, "a NUL in a name or a cursor is refused naming the field, and nothing is written", async ({ a }) => {
      const before = await counts(a);
      const bad: [string, () => Promise<unknown>, { code: string; field?: string }][] = [
        ["session", () => a.append({ session: "s\u0000", entries: [{ role: "note", content: "x" }] }), { code: "invalid_input", field: "session" }],
        [
          "idem_key",
          () => a.append({ session: "s", entries: [{ role: "note", content: "x", idem_key: "k\u0000" }] }),
          { code: "invalid_input", field: "entries.0.idem_key" },
        ],
        ["fact key", () => a.factSet({ key: "k\u0000", value: 1 }), { code: "invalid_input", field: "key" }],
        ["fact idem_key", () => a.factSet({ key: "k", value: 1, idem_key: "\u0000" }), { code: "invalid_input", field: "idem_key" }],
        ["link idem_key", () => a.linkAdd({ url: "https://example.com/", idem_key: "\u0000" }), { code: "invalid_input", field: "idem_key" }],
        ["object name", () => a.objectPut(new TextEncoder().encode("x"), { name: "a\u0000.txt" }), { code: "invalid_input", field: "name" }],
        ["object idem_key", () => a.objectPut(new TextEncoder().encode("x"), { idem_key: "k\u0000" }), { code: "invalid_input", field: "idem_key" }],
        ["sessions after", () => a.sessions({ after: "s\u0000" }), { code: "invalid_input", field: "after" }],
        ["fact_list after", () => a.factList({ after: "k\u0000" }), { code: "invalid_input", field: "after" }],
        ["forget selector", () => a.forget({ selector: { session: "s\u0000" } }), { code: "invalid_input", field: "selector.session" }],
      ];
      for (const [what, call, expected] of bad) {
        expect(await failure(call()), what).toEqual(expected);
        expect(await counts(a), what).toEqual(before);
      }
      expect((await a.objectList()).objects).toEqual([]);
    });
  });
}
