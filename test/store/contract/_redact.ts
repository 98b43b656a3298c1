/** Redaction on every write an engine takes (DESIGN.md 7.2; issue 14): the same on every engine and over HTTP. */
import { describe, expect } from "bun:test";
import type { Memory } from "../../../src/store/types.ts";
import { escapedForms, secrets } from "../../fixtures/redact/corpus.ts";
import { type Factory, contractTest, counts, failure } from "./_subject.ts";

// Fake secrets: none is a real credential.
const GHP = "ghp_C0ntractT3stT0kenAbcdefghij0123456789";
const PASSWORD = "Zq9!vN3@kLm2Pw7x";

const AKIA = "AKIAZQ3XK7PLM2RT9WVB";

/** Names holding a secret (issue 29 item 9): each is refused, naming its field. */
const SECRET_NAMES: [string, (m: Memory) => Promise<unknown>, string][] = [
  ["a session name", (m) => m.append({ session: `proj/${GHP}`, entries: [{ role: "note", content: "x" }] }), "session"],
  ["an entry's idem_key", (m) => m.append({ session: "s", entries: [{ role: "note", content: "x", idem_key: `run:${AKIA}` }] }), "entries.0.idem_key"],
  ["a fact key", (m) => m.factSet({ key: `deploy/password=${PASSWORD}`, value: 1 }), "key"],
  ["a fact's idem_key", (m) => m.factSet({ key: "k", value: 1, idem_key: GHP }), "idem_key"],
  ["a link's idem_key", (m) => m.linkAdd({ url: "https://example.org/", idem_key: `x ${GHP}` }), "idem_key"],
  ["an object name", (m) => m.objectPut(new TextEncoder().encode("bytes"), { name: `${GHP}.txt` }), "name"],
  ["an object's idem_key", (m) => m.objectPut(new TextEncoder().encode("bytes"), { idem_key: AKIA }), "idem_key"],
];

/** The redaction cases. */
export function redactCases(factory: Factory): void {
  describe("redaction", () => {
    contractTest(factory, "an append's content and meta strings are stored redacted, and the result counts them", async ({ a }) => {
      const r = await a.append({ session: "s", entries: [{ role: "note", content: `token ${GHP}`, meta: { cmd: `mysql -uroot -p${PASSWORD} prod` } }] });
      expect(r.redacted).toBe(2);
      const [turn] = (await a.read({ session: "s" })).turns;
      expect(JSON.stringify(turn)).not.toContain(GHP);
      expect(JSON.stringify(turn)).not.toContain(PASSWORD);
      expect(turn!.meta).toMatchObject({ redacted: 2 });
    });

    contractTest(factory, "fact values at any depth and link URLs are stored redacted", async ({ a }) => {
      expect((await a.factSet({ key: "db", value: { prod: { password: PASSWORD } } })).redacted).toBe(1);
      expect(JSON.stringify((await a.factGet({ key: "db" })).value)).not.toContain(PASSWORD);
      const link = await a.linkAdd({ url: `https://x-access-token:${GHP}@github.com/o/r`, title: "repo" });
      expect(link.redacted).toBe(1);
      const hits = (await a.search({ query: "repo" })).hits;
      expect(hits.map((h) => h.url)).toEqual(["https://x-access-token:[redacted:github_token]@github.com/o/r"]);
    });

    contractTest(factory, "escaped and doubly escaped text is redacted as it decodes, its JSON still valid (issue 29 item 3)", async ({ a }) => {
      const escaped = JSON.stringify({ stdout: `# .env\nDB_PASSWORD=${PASSWORD}\ntoken ${GHP}\n` });
      const doubly = JSON.stringify(escaped);
      const r = await a.append({ session: "s", entries: [{ role: "tool", content: escaped, meta: { raw: doubly } }] });
      expect(r.redacted).toBe(4);
      expect((await a.factSet({ key: "printed", value: [doubly] })).redacted).toBe(2);
      const [turn] = (await a.read({ session: "s" })).turns;
      const stored = JSON.stringify([turn, (await a.factGet({ key: "printed" })).value]);
      expect(stored).not.toContain(GHP);
      expect(stored).not.toContain(PASSWORD);
      const plain = "# .env\nDB_PASSWORD=[redacted:assignment]\ntoken [redacted:github_token]\n";
      expect(JSON.parse(turn!.content)).toEqual({ stdout: plain });
      expect(JSON.parse(JSON.parse((turn!.meta as { raw: string }).raw) as string)).toEqual({ stdout: plain });
    });

    contractTest(factory, "a name holding a secret is refused, naming the field, and nothing is written (issue 29 item 9)", async ({ a }) => {
      const before = await counts(a);
      for (const [what, call, field] of SECRET_NAMES) {
        expect(await failure(call(a)), what).toEqual({ code: "invalid_input", field });
        expect(await counts(a), what).toEqual(before);
      }
      const message = await a.append({ session: `proj/${GHP}`, entries: [{ role: "note", content: "x" }] }).catch((e: Error) => e.message);
      expect(message).toContain("github_token");
      expect(message, "the error never repeats the secret").not.toContain(GHP);
      // A marker is no secret: a name capture made safe is stored as it is.
      const safe = "proj-[redacted:github_token]-1a2b3c4d/0123456789abcdef";
      expect((await a.append({ session: safe, entries: [{ role: "note", content: "x", idem_key: "run:[redacted:aws_access_key]:0" }] })).entries).toHaveLength(
        1,
      );
      expect((await a.sessions({})).sessions.map((s) => s.name)).toEqual([safe]);
    });

    contractTest(
      factory,
      "every corpus secret, escaped and doubly escaped, in content and meta: gone as it decodes, still valid (issue 29 item 3)",
      async ({ a }) => {
        const forms = secrets().flatMap((r) => escapedForms(r.text).map((f) => ({ r, f })));
        for (let i = 0; i < forms.length; i += 128) {
          const batch = forms.slice(i, i + 128);
          await a.append({ session: "corpus", entries: batch.map(({ f }) => ({ role: "tool", content: f.escaped, meta: { raw: f.escaped } })) });
        }
        const stored: Awaited<ReturnType<Memory["read"]>>["turns"] = [];
        for (let after = 0; ; ) {
          const page = await a.read({ session: "corpus", after, limit: 1000 });
          stored.push(...page.turns);
          if (page.next === null) break;
          after = page.next;
        }
        expect(stored).toHaveLength(forms.length);
        const leaked = forms.flatMap(({ r, f }, i) => {
          const t = stored[i]!;
          for (const text of [t.content, (t.meta as { raw: string }).raw]) {
            try {
              if (f.decode(text).includes(r.value)) return [`${r.id} (${f.form})`];
            } catch {
              return [`${r.id} (${f.form}): no longer valid`];
            }
          }
          return [];
        });
        expect(leaked).toEqual([]);
      },
    );

    contractTest(factory, "an append with redact: false stores the text as given and its meta says redaction: off", async ({ a }) => {
      const r = await a.append({ session: "s", entries: [{ role: "note", content: `fixture ${GHP}` }], redact: false });
      expect(r.redacted).toBeUndefined();
      const [turn] = (await a.read({ session: "s" })).turns;
      expect(turn!.content).toContain(GHP);
      expect(turn!.meta).toEqual({ redaction: "off" });
    });
  });
}
