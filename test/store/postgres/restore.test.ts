/**
 * `zerodb restore FILE... --database URL` (issues 16 and 20): a laptop's
 * store, its objects included, moved onto a team server's empty PostgreSQL
 * database through a verified backup. Records keep their LSNs, object bytes
 * come along (read back through a `serve` on the database), forgotten
 * content stays forgotten, and a database that is not empty, a damaged
 * backup or a tenant selection are handled without a half-restored store.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ZERODB_SRC, tempDir } from "../../helpers.ts";
import { seeded } from "../../seed.ts";
import { parseBackup, writeBackup } from "../../backup/_resign.ts";
import { json, zerodb } from "./_cli.ts";
import { startServe } from "./_serve.ts";
import { type TestPostgres, postgresForFile } from "./_server.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

/** A laptop store: turns in two tenants, a fact, two objects (one forgotten afterwards, one binary kept). */
async function laptop(home: string): Promise<{ kept: string; keptBytes: Uint8Array<ArrayBuffer>; gone: string }> {
  mkdirSync(home, { recursive: true });
  const keptBytes = new Uint8Array(new ArrayBuffer(3 * 1024 * 1024 + 17)).map((_, i) => (i * 7919) % 251);
  writeFileSync(join(home, "kept.bin"), keptBytes);
  writeFileSync(join(home, "gone.txt"), "forget-me-object-bytes\n");
  await json(home, ["append", "--session", "proj/a", "the deploy key rotation happens on Fridays"]);
  await json(home, ["append", "--session", "proj/b", "bob's own turn", "--tenant", "bob"]);
  await json(home, ["fact", "set", "cron", "runs in UTC"]);
  const kept = await json<{ object: string }>(home, ["object", "put", join(home, "kept.bin")]);
  const gone = await json<{ object: string }>(home, ["object", "put", join(home, "gone.txt"), "--tenant", "bob"]);
  await json(home, ["append", "--session", "proj/secret", "a turn to forget: zebra-walnut-4821"]);
  await json(home, ["forget", "--session", "proj/secret"]);
  await json(home, ["forget", "--object", gone.object, "--tenant", "bob"]);
  return { kept: kept.object, keptBytes, gone: gone.object };
}

if (!server) {
  describe("restore into PostgreSQL", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
} else {
  describe("restore into PostgreSQL", () => {
    test("a laptop's backup restored into an empty database: same records and LSNs, object bytes served, forgotten content still gone", async () => {
      using dir = tempDir("zerodb-pg-restore-");
      const home = join(dir.path, "laptop");
      const { kept, keptBytes, gone } = await laptop(home);
      const file = join(dir.path, "laptop.zdbk");
      await json(home, ["backup", "--out", file]);
      const before = (await zerodb(home, ["export"])).out;
      const url = await server.database();
      const admin = join(dir.path, "admin");
      // A scratch dir a killed restore left behind (its process is gone) is removed by the next restore.
      mkdirSync(join(admin, "zerodb", ".restore-2147483646-dead", "data"), { recursive: true });
      const r = await json<{ records: number; objects: number; last_lsn: number; tokens: number; cursors: number; data_dir: string }>(admin, [
        "restore",
        file,
        "--database",
        url,
      ]);
      expect(r.objects).toBe(1);
      expect(r.data_dir).not.toContain(url.split("@")[0]!.split(":").at(-1)!); // the password is never shown
      // No scratch dir is left in the admin's home.
      expect(readdirSync(join(admin, "zerodb")).filter((n) => n.startsWith(".restore-"))).toEqual([]);
      // The same tape, record for record, read back from the database.
      const after = await zerodb(admin, ["export", "--database", url]);
      expect(after.code).toBe(0);
      expect(after.out).toBe(before);
      expect(after.out).not.toContain("zebra-walnut-4821");
      // Object bytes come from the database through a serve on another machine.
      await using serve = await startServe(join(dir.path, "server"), url);
      const token = (await json<{ token: string }>(admin, ["token", "create", "--tenant", "local", "--database", url])).token;
      const res = await fetch(`${serve.url}/v1/objects/${kept}`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(keptBytes);
      const bob = (await json<{ token: string }>(admin, ["token", "create", "--tenant", "bob", "--database", url])).token;
      expect((await fetch(`${serve.url}/v1/objects/${gone}`, { headers: { authorization: `Bearer ${bob}` } })).status).toBe(404);
      // Search works on the restored records.
      const hits = (await (await fetch(`${serve.url}/v1/search?q=deploy+key`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
        hits: { snippet: string }[];
      };
      expect(hits.hits[0]?.snippet).toContain("rotation");
    }, 60_000);

    test(
      "restore --database killed with SIGKILL at random points: the database holds nothing or the whole store, and the next restore completes it",
      seeded(async (random) => {
        using dir = tempDir("zerodb-pg-restore-kill-");
        const home = join(dir.path, "laptop");
        await laptop(home);
        const file = join(dir.path, "laptop.zdbk");
        await json(home, ["backup", "--out", file]);
        const whole = (await zerodb(home, ["export"])).out;
        const admin = join(dir.path, "admin");
        const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: admin, ZERODB_HOME: join(admin, "zerodb") };
        // How long a whole restore takes here, from spawn: the kill points are drawn within it.
        const start = performance.now();
        const full = Bun.spawn(["bun", ZERODB_SRC, "restore", file, "--database", await server.database(), "--json"], {
          env,
          cwd: dir.path,
          stdout: "ignore",
          stderr: "ignore",
        });
        expect(await full.exited).toBe(0);
        const span = performance.now() - start;
        const outcomes = new Set<string>();
        for (let round = 0; round < 8; round++) {
          const url = await server.database();
          const proc = Bun.spawn(["bun", ZERODB_SRC, "restore", file, "--database", url, "--json"], { env, cwd: dir.path, stdout: "ignore", stderr: "ignore" });
          await Bun.sleep(Math.floor(random() * span));
          proc.kill(9);
          const code = await proc.exited;
          const after = (await zerodb(admin, ["export", "--database", url])).out;
          // All of it or none of it: the records and the bytes commit in one transaction.
          expect([0, 137].includes(code) || code === null).toBe(true);
          expect(after === "" || after === whole).toBe(true);
          outcomes.add(after === "" ? "nothing" : "whole");
          if (after === "") {
            // Nothing there: a restore now completes it, and removes the killed one's scratch dir.
            await json(admin, ["restore", file, "--database", url]);
            expect((await zerodb(admin, ["export", "--database", url])).out).toBe(whole);
          }
        }
        // Kill points inside the restore leave nothing (records and bytes commit together, at its end).
        expect(outcomes.has("nothing")).toBe(true);
        // The next restore removes every scratch dir a killed one left, and leaves none of its own.
        await json(admin, ["restore", file, "--database", await server.database()]);
        expect(readdirSync(join(admin, "zerodb")).filter((n) => n.startsWith(".restore-"))).toEqual([]);
      }),
      300_000,
    );

    test("a database that holds anything, a damaged backup, or both targets at once: refused, and the database is as it was", async () => {
      using dir = tempDir("zerodb-pg-restore-bad-");
      const home = join(dir.path, "laptop");
      await laptop(home);
      const file = join(dir.path, "laptop.zdbk");
      await json(home, ["backup", "--out", file]);
      const admin = join(dir.path, "admin");
      // Not empty: one turn already there.
      const busy = await server.database();
      {
        await using s = await startServe(join(dir.path, "s1"), busy);
        const t = (await json<{ token: string }>(admin, ["token", "create", "--tenant", "team", "--database", busy])).token;
        const w = await fetch(`${s.url}/v1/turns`, {
          method: "POST",
          headers: { authorization: `Bearer ${t}`, "content-type": "application/json" },
          body: JSON.stringify({ session: "team/x", entries: [{ role: "note", content: "already here" }] }),
        });
        expect(w.status).toBe(200);
      }
      const exportBusy = (await zerodb(admin, ["export", "--database", busy])).out;
      const refused = await zerodb(admin, ["restore", file, "--database", busy]);
      expect(refused.code).not.toBe(0);
      expect(refused.err).toContain("not empty");
      expect((await zerodb(admin, ["export", "--database", busy])).out).toBe(exportBusy);
      // Damaged: one byte of an object's bytes changed; nothing reaches the (empty) database.
      const bytes = readFileSync(file);
      const at = bytes.lastIndexOf(Buffer.from("\nO sha256:")) + 200;
      bytes[at] = bytes[at]! ^ 0xff;
      const damaged = join(dir.path, "damaged.zdbk");
      writeFileSync(damaged, bytes);
      const empty = await server.database();
      const bad = await zerodb(admin, ["restore", damaged, "--database", empty]);
      expect(bad.code).not.toBe(0);
      expect(bad.err).toMatch(/object|digest|checksum|damaged/);
      expect((await zerodb(admin, ["export", "--database", empty])).out).toBe("");
      expect(readdirSync(join(admin, "zerodb")).filter((n) => n.startsWith(".restore-"))).toEqual([]);
      // Both targets: a usage error before anything is read.
      const both = await zerodb(admin, ["restore", file, "--database", empty, "--data-dir", join(dir.path, "d")]);
      expect(both.code).toBe(2);
      expect(both.err).toContain("not both");
    }, 120_000);

    test("issue 29 item 5: a re-signed backup that says what no store wrote is refused, nothing reaches the database", async () => {
      using dir = tempDir("zerodb-pg-restore-");
      const home = join(dir.path, "laptop");
      await laptop(home);
      await json(home, ["backup", "--out", join(dir.path, "full.zdbk")]);
      await json(home, ["backup", "--out", join(dir.path, "local.zdbk"), "--tenant", "local"]);
      const full = parseBackup(readFileSync(join(dir.path, "full.zdbk")));
      const local = parseBackup(readFileSync(join(dir.path, "local.zdbk")));
      // Bob's record planted in local's backup, every sum and the trailer recomputed.
      const bobs = full.records.find((r) => r.tenant === "bob" && !("forgotten_by" in r))!;
      local.records = [...local.records, bobs].sort((a, b) => a.lsn - b.lsn);
      const planted = join(dir.path, "planted.zdbk");
      writeFileSync(planted, writeBackup(local));
      const admin = join(dir.path, "admin");
      const empty = await server.database();
      const r = await zerodb(admin, ["restore", planted, "--database", empty]);
      expect({ code: r.code, err: r.err }).toEqual({
        code: 2,
        err: `zerodb: ${planted}: record lsn ${bobs.lsn}.tenant: a record of tenant bob in a backup of tenant local; nothing was restored\n`,
      });
      // A whole store's header moved to the last LSN a JS number holds exactly.
      full.header.last_lsn = 2 ** 53 - 1;
      const huge = join(dir.path, "huge.zdbk");
      writeFileSync(huge, writeBackup(full));
      const h = await zerodb(admin, ["restore", huge, "--database", empty]);
      expect(h.code).toBe(2);
      expect(h.err).toStartWith(`zerodb: ${huge}: header.last_lsn: ${2 ** 53 - 1} is past the highest lsn a restore takes`);
      expect((await zerodb(admin, ["export", "--database", empty])).out).toBe("");
      expect(readdirSync(join(admin, "zerodb")).filter((n) => n.startsWith(".restore-"))).toEqual([]);
    }, 60_000);
  });
}
