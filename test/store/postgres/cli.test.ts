/**
 * `--database` on the commands that open a store (issue 16): token
 * create/list/revoke, import, export, stats and doctor act on a team
 * server's PostgreSQL database from any machine, with no environment set; a
 * running `serve` on that database honours the tokens at once; `doctor
 * --url` checks the team server through a member's token.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../helpers.ts";
import { json, zerodb } from "./_cli.ts";
import { startServe } from "./_serve.ts";
import { postgresForFile, type TestPostgres } from "./_server.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

if (!server) {
  describe("PostgreSQL CLI", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  describe("PostgreSQL CLI", () => {
    test("token create --database on two machines, a serve honouring both at once, list and revoke from a third", async () => {
      using dir = tempDir("zerodb-pg-cli-db-");
      const url = await server.database();
      const [alice, bob, admin] = ["alice", "bob", "admin"].map((n) => join(dir.path, n)) as [string, string, string];
      await using serve = await startServe(join(dir.path, "server"), url);
      const a = await json<{ token: string; id: string; tenant: string }>(alice, ["token", "create", "--tenant", "team", "--database", url]);
      const b = await json<{ token: string; id: string; tenant: string }>(bob, ["token", "create", "--tenant", "team", "--database", url]);
      const append = (token: string, content: string) =>
        fetch(`${serve.url}/v1/turns`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ session: "s", entries: [{ role: "note", content }] }),
        });
      // Tokens made after the serve started work with it: it reads them from the shared database.
      expect((await append(a.token, "from alice")).status).toBe(200);
      expect((await append(b.token, "from bob")).status).toBe(200);
      const listed = await json<{ tokens: { id: string; tenant: string; revoked: string | null }[] }>(admin, ["token", "list", "--database", url]);
      expect(listed.tokens.map((t) => [t.id, t.tenant, t.revoked]).sort()).toEqual(
        [
          [a.id, "team", null],
          [b.id, "team", null],
        ].sort(),
      );
      const revoked = await zerodb(admin, ["token", "revoke", b.id, "--database", url]);
      expect(revoked.code).toBe(0);
      expect((await append(b.token, "after revoke")).status).toBe(401);
      expect((await append(a.token, "still in")).status).toBe(200);
      const stats = await json<{ tenant: string; turns: { count: number } }>(admin, ["stats", "--database", url, "--tenant", "team"]);
      expect([stats.tenant, stats.turns.count]).toEqual(["team", 3]);
      // No password in anything the commands print.
      for (const home of [alice, bob, admin]) expect((await zerodb(home, ["token", "list", "--database", url])).err).not.toContain("test-secret");
    }, 120_000);

    test("export from a laptop, import --database, export --database gives the same records", async () => {
      using dir = tempDir("zerodb-pg-cli-move-");
      const url = await server.database();
      const laptop = join(dir.path, "laptop");
      await json(laptop, ["append", "--session", "proj", "--role", "note", "moved to the team server"]);
      await json(laptop, ["fact", "set", "owner", '"alice"']);
      const file = join(dir.path, "tape.jsonl");
      expect((await zerodb(laptop, ["export", "--out", file])).code).toBe(0);
      const imported = await zerodb(join(dir.path, "admin"), ["import", file, "--database", url]);
      expect(imported.code).toBe(0);
      const back = await zerodb(join(dir.path, "admin"), ["export", "--database", url]);
      expect(back.code).toBe(0);
      expect(back.out).toBe(await Bun.file(file).text());
    }, 120_000);

    test("bad --database is refused before connecting; --url with --database is refused; doctor --database checks the database", async () => {
      using dir = tempDir("zerodb-pg-cli-doctor-");
      const url = await server.database();
      const home = join(dir.path, "admin");
      const bad = await zerodb(home, ["token", "list", "--database", "mysql://root:hunter2@db/x"]);
      expect([bad.code, bad.out]).toEqual([2, ""]);
      expect(bad.err).toContain("database: must be a postgres:// URL");
      expect(bad.err).not.toContain("hunter2");
      const both = await zerodb(home, ["stats", "--database", url, "--url", "http://127.0.0.1:1"]);
      expect(both.code).toBe(2);
      expect(both.err).toContain("--url or --database");
      type Report = { ok: boolean; checks: { name: string; status: string; detail: string; fix?: string }[] };
      const report = await zerodb(home, ["doctor", "--json", "--database", url]);
      const checks = (JSON.parse(report.out) as Report).checks;
      const store = checks.find((c) => c.name === "store")!;
      expect(store.status).toBe("pass");
      expect(store.detail).toContain("postgres://postgres:***@");
      expect(checks.find((c) => c.name === "round trip")).toMatchObject({ status: "pass", detail: expect.stringContaining("not run") });
      expect(report.out).not.toContain("test-secret");
      const down = await zerodb(home, ["doctor", "--json", "--database", url.replace(/:\d+\//, ":1/")]);
      expect(down.code).toBe(1);
      const failed = (JSON.parse(down.out) as Report).checks.find((c) => c.name === "store")!;
      expect(failed).toMatchObject({ status: "fail", fix: expect.stringContaining("PostgreSQL runs") });
      expect(down.out).not.toContain("test-secret");
    }, 120_000);

    test("doctor --url checks a team server: liveness, then with a member's token that its database answers", async () => {
      using dir = tempDir("zerodb-pg-cli-url-");
      const url = await server.database();
      const member = join(dir.path, "member");
      const tokenFile = join(dir.path, "member.token");
      await json(join(dir.path, "admin"), ["token", "create", "--tenant", "team", "--database", url, "--out", tokenFile]);
      await using serve = await startServe(join(dir.path, "server"), url);
      type Report = { checks: { name: string; status: string; detail: string }[] };
      const serverCheck = async (args: string[]) =>
        (JSON.parse((await zerodb(member, ["doctor", "--json", "--url", serve.url, ...args])).out) as Report).checks.find((c) => c.name === "server")!;
      expect(await serverCheck([])).toEqual({ name: "server", status: "pass", detail: expect.stringMatching(/healthz answers \(zerodb [^)]+\)$/) });
      expect(await serverCheck(["--token-file", tokenFile])).toMatchObject({
        status: "pass",
        detail: expect.stringContaining("the token acts in tenant team, whose store answers (last lsn 0)"),
      });
      const wrong = join(dir.path, "wrong.token");
      writeFileSync(wrong, `zdb_${"A".repeat(43)}\n`, { mode: 0o600 });
      expect(await serverCheck(["--token-file", wrong])).toMatchObject({ status: "fail", detail: expect.stringContaining("refused the token") });
    }, 120_000);
  });
}
