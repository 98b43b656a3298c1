/**
 * U+0000 on the team server (issue 29 item 1, DESIGN.md 12): PostgreSQL's
 * text and jsonb cannot hold it, so the engine encodes it (nul.ts). A
 * transcript holding a NUL is captured into `serve --database` and the lines
 * after it are too (capture never stalls behind one line, DESIGN.md 7.2);
 * a laptop's NULs survive backup, restore, export and import both ways; and
 * rows an older release wrote holding the encoding's noncharacters read back
 * as written after migration 5. The operations themselves are in the Store
 * contract (test/store/contract/_nul.ts).
 */
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../../src/store/index.ts";
import { MIGRATIONS } from "../../../src/store/postgres/migrate.ts";
import { wordsOf } from "../../../src/store/postgres/words.ts";
import { openSqliteStore } from "../../../src/store/sqlite/store.ts";
import { claudeLayout, conversation, jsonl, logLines, runHook } from "../../capture/_fixtures.ts";
import { startServer } from "../../http/_server.ts";
import { tempDir } from "../../helpers.ts";
import { exportOf, feed } from "../../security/_forget-traces.ts";
import { json, zerodb } from "./_cli.ts";
import { type TestPostgres, postgresForFile } from "./_server.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

const SID = "0a0a0a0a-0000-4000-8000-000000000029";
/** What `cat` of a binary file prints: NULs between words, and the noncharacters the encoding uses. */
const BINARY = "\u007fELF\u0002\u0001\u0001\u0000\u0000\u0000 libquokka.so.6 \u0000GLIBC_2.34\u0000 \uFDD0\uFDD1 end";

if (!server) {
  describe("U+0000 on PostgreSQL", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  describe("U+0000 on PostgreSQL", () => {
    test("a transcript line holding NUL is captured into serve --database, and so is every line after it", async () => {
      using dir = tempDir("zerodb-pg-nul-capture-");
      const url = await server.database();
      const admin = await openStore({ dataDir: join(dir.path, "admin"), database: url });
      try {
        const { token } = await admin.tokens.create({ tenant: "team" });
        mkdirSync(join(dir.path, "server"));
        await using serve = await startServer(join(dir.path, "server"), ["--database", url]);
        const L = claudeLayout(join(dir.path, "laptop"));
        mkdirSync(join(L.home, "zerodb"), { recursive: true });
        writeFileSync(join(L.home, "zerodb", "token"), `${token}\n`, { mode: 0o600 });
        writeFileSync(join(L.home, "zerodb", "config.json"), JSON.stringify({ url: serve.url, token_file: join(L.home, "zerodb", "token") }));
        const c = conversation(SID, L.cwd);
        writeFileSync(L.transcript(SID), jsonl(c.user("cat the library")) + jsonl(c.toolResult("toolu_1", BINARY)) + jsonl(c.user("what is in it")));
        expect(await runHook(L, "Stop", SID)).toEqual({ code: 0, stdout: "", stderr: "" });
        writeFileSync(L.transcript(SID), jsonl(c.assistant([{ type: "text", text: "it links against glibc" }])), { flag: "a" });
        expect(await runHook(L, "Stop", SID)).toEqual({ code: 0, stdout: "", stderr: "" });
        expect(await logLines(L.home)).toEqual([]);

        const m = admin.memory("team");
        const [session] = (await m.sessions({})).sessions;
        const turns = (await m.read({ session: session!.name })).turns;
        expect(turns.map((t) => t.meta.position)).toEqual([0, 1, 2, 3]);
        expect(turns[1]!.content).toContain(BINARY);
        expect(turns[3]!.content).toContain("it links against glibc");
        const hit = (await m.search({ query: "libquokka" })).hits[0]!;
        expect(hit.lsn).toBe(turns[1]!.lsn);
        expect(hit.snippet).toContain("\u0000 [libquokka].so.6 \u0000GLIBC_2.34\u0000");
      } finally {
        admin.close();
      }
    }, 120_000);

    test("backup, restore, export and import keep every NUL, from a laptop onto the team server and back", async () => {
      using dir = tempDir("zerodb-pg-nul-transfer-");
      const laptop = join(dir.path, "laptop");
      const local = openSqliteStore(join(laptop, "zerodb", "data"));
      const m = local.memory("local");
      await m.append({ session: "bin", entries: [{ role: "tool", content: BINARY, meta: { "k\u0000": ["\u0000", "\uFDD1"] }, idem_key: "bin:0" }] });
      await m.factSet({ key: "bin/value", value: { v: "a\u0000b\uFDD0" } });
      await m.linkAdd({ url: "https://example.com/\u0000", title: "t\u0000", note: "\uFDD0\u0000" });
      const laptopExport = await exportOf(local);
      local.close();

      const file = join(dir.path, "laptop.zdbk");
      await json(laptop, ["backup", "--out", file]);
      const url = await server.database();
      await json(join(dir.path, "admin"), ["restore", file, "--database", url]);
      const team = await openStore({ dataDir: join(dir.path, "team"), database: url });
      try {
        expect(await exportOf(team)).toEqual(laptopExport);
        const t = team.memory("local");
        expect((await t.read({ session: "bin" })).turns[0]).toMatchObject({ content: BINARY, meta: { "k\u0000": ["\u0000", "\uFDD1"] } });
        expect((await t.factGet({ key: "bin/value" })).value).toEqual({ v: "a\u0000b\uFDD0" });
        // A retry of the laptop's write is the same operation on the team server (I3).
        expect(
          (await t.append({ session: "bin", entries: [{ role: "tool", content: BINARY, meta: { "k\u0000": ["\u0000", "\uFDD1"] }, idem_key: "bin:0" }] }))
            .entries,
        ).toEqual([{ lsn: 1, duplicate: true }]);

        // The team server's export, as the CLI writes it, imports into an empty laptop store: the same records again.
        const exported = await zerodb(join(dir.path, "admin"), ["export", "--database", url]);
        expect(exported.code).toBe(0);
        const back = openSqliteStore(join(dir.path, "back"));
        try {
          await back.importTape(
            feed(
              exported.out
                .trim()
                .split("\n")
                .map((l) => JSON.parse(l) as unknown),
            ),
          );
          expect(await exportOf(back)).toEqual(laptopExport);
        } finally {
          back.close();
        }
        // And an export of the team server imports into another database.
        const again = await openStore({ dataDir: join(dir.path, "again"), database: await server.database() });
        try {
          await again.importTape(feed(await exportOf(team)));
          expect(await exportOf(again)).toEqual(laptopExport);
        } finally {
          again.close();
        }
      } finally {
        team.close();
      }
    }, 120_000);

    test("migration 5: rows written before it holding U+FDD0 or U+FDD1 read back as they were written", async () => {
      using dir = tempDir("zerodb-pg-nul-migration-");
      const url = await server.database();
      const first = await openStore({ dataDir: dir.path, database: url });
      const m = first.memory("local");
      const plain = "\uFDD1\uFDD0 written by the previous release \uFDD0";
      await m.append({ session: "s", entries: [{ role: "note", content: "placeholder", meta: { "\uFDD0": "\uFDD1x" } }] });
      await m.factSet({ key: "f", value: ["\uFDD1\uFDD1"] });
      first.close();
      // As schema 4 stored them: as written, with nothing escaped.
      const db = new SQL(url);
      try {
        await db`UPDATE tape SET text = ${plain}, words = ${wordsOf(plain)}::tsvector, data = ${JSON.stringify({ role: "note", meta: { "\uFDD0": "\uFDD1x" } })}::text::jsonb WHERE lsn = 1`;
        await db`UPDATE tape SET data = ${JSON.stringify({ value: ["\uFDD1\uFDD1"] })}::text::jsonb WHERE lsn = 2`;
        await db`UPDATE zerodb_schema SET version = 4`;
      } finally {
        await db.close();
      }
      expect(MIGRATIONS.length).toBeGreaterThanOrEqual(5);
      const store = await openStore({ dataDir: dir.path, database: url });
      try {
        const s = store.memory("local");
        expect((await s.read({ session: "s" })).turns[0]).toMatchObject({ content: plain, meta: { "\uFDD0": "\uFDD1x" } });
        expect((await s.factGet({ key: "f" })).value).toEqual(["\uFDD1\uFDD1"]);
        expect((await s.search({ query: "previous release" })).hits[0]!.snippet).toContain("\uFDD1\uFDD0 written by the");
      } finally {
        store.close();
      }
    }, 60_000);
  });
}
