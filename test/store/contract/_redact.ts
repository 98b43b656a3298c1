/** Redaction on every write an engine takes (DESIGN.md 7.2; issue 14): the same on every engine and over HTTP. */
import { describe, expect } from "bun:test";
import { type Factory, contractTest } from "./_subject.ts";

// Fake secrets: none is a real credential.
const GHP = "ghp_C0ntractT3stT0kenAbcdefghij0123456789";
const PASSWORD = "Zq9!vN3@kLm2Pw7x";

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

    contractTest(factory, "an append with redact: false stores the text as given and its meta says redaction: off", async ({ a }) => {
      const r = await a.append({ session: "s", entries: [{ role: "note", content: `fixture ${GHP}` }], redact: false });
      expect(r.redacted).toBeUndefined();
      const [turn] = (await a.read({ session: "s" })).turns;
      expect(turn!.content).toContain(GHP);
      expect(turn!.meta).toEqual({ redaction: "off" });
    });
  });
}
