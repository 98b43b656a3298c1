/** I6: every bad input gets a typed error naming its field, and nothing is written. */
import { describe, expect } from "bun:test";
import type { Memory } from "../../../src/store/types.ts";
import { type Factory, contractTest, counts, failure } from "./_subject.ts";

const MIB = 1024 * 1024;

/** Each bad call, and the code and field it must fail with. */
const BAD: [string, (m: Memory) => Promise<unknown>, { code: string; field?: string }][] = [
  [
    "append with a bad session name",
    (m) => m.append({ session: "a//b", entries: [{ role: "note", content: "x" }] }),
    { code: "invalid_input", field: "session" },
  ],
  ["append with no entries", (m) => m.append({ session: "s", entries: [] }), { code: "invalid_input", field: "entries" }],
  [
    "append over 256 entries",
    (m) => m.append({ session: "s", entries: Array.from({ length: 257 }, () => ({ role: "note" as const, content: "x" })) }),
    { code: "too_large", field: "entries" },
  ],
  [
    "append of content over 4 MiB",
    (m) => m.append({ session: "s", entries: [{ role: "note", content: "x".repeat(4 * MIB + 1) }] }),
    { code: "too_large", field: "entries.0.content" },
  ],
  [
    "append with meta that is not an object",
    (m) => m.append({ session: "s", entries: [{ role: "note", content: "x", meta: [1] as unknown as Record<string, unknown> }] }),
    { code: "invalid_input", field: "entries.0.meta" },
  ],
  [
    "append with an unknown field",
    (m) => m.append({ session: "s", entries: [{ role: "note", content: "x" }], bogus: 1 } as never),
    { code: "invalid_input", field: "bogus" },
  ],
  ["read with a page over 1,000", (m) => m.read({ session: "s", limit: 5000 }), { code: "invalid_input", field: "limit" }],
  ["sessions with a page of 0", (m) => m.sessions({ limit: 0 }), { code: "invalid_input", field: "limit" }],
  ["search with no words", (m) => m.search({ query: " ?! " }), { code: "invalid_input", field: "query" }],
  ["fact_set over 1 MiB", (m) => m.factSet({ key: "k", value: "x".repeat(MIB) }), { code: "too_large", field: "value" }],
  ["fact_set with a bad key", (m) => m.factSet({ key: "/k", value: 1 }), { code: "invalid_input", field: "key" }],
  ["link_add of a non-http URL", (m) => m.linkAdd({ url: "ftp://example.com/x" }), { code: "invalid_input", field: "url" }],
  ["forget of a turn that is not an LSN", (m) => m.forget({ selector: { turn: -1 } }), { code: "invalid_input", field: "selector.turn" }],
  ["object_get of a malformed digest", (m) => m.objectGet({ object: "sha256:xyz" }), { code: "invalid_input", field: "object" }],
  ["object_put with a bad media type", (m) => m.objectPut(new TextEncoder().encode("x"), { type: "not a type" }), { code: "invalid_input", field: "type" }],
];

/** The error cases. */
export function errorCases(factory: Factory): void {
  describe("typed errors (I6)", () => {
    contractTest(factory, "each bad input fails with its code, naming the field, and writes nothing", async ({ a }) => {
      const before = await counts(a);
      for (const [what, call, expected] of BAD) {
        expect(await failure(call(a)), what).toEqual(expected);
        expect(await counts(a), what).toEqual(before);
      }
      expect((await a.objectList()).objects).toEqual([]);
    });
  });
}
