/**
 * Eight processes mixing appends, searches, forgets and page walks on one
 * store (issue 9; D5, I1, I4, I8): no error other than expected ones, no lost
 * or repeated turn. ZERODB_SOAK_SECONDS sets the length (default 12 s; the
 * soak runs a minute or more).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";

const MIXER = join(import.meta.dir, "..", "fixtures", "mixer.ts");
const SECONDS = Number(process.env.ZERODB_SOAK_SECONDS ?? "12");

describe("eight processes at once", () => {
  test(
    `appends, searches, forgets and walks for ${SECONDS} s: nothing lost, nothing repeated`,
    async () => {
      using dir = tempDir();
      // Create the store first so the eight do not all race to migrate it.
      Bun.spawnSync([process.execPath, MIXER, dir.path, "search", "0", "0"]);
      const roles = ["append", "append", "append", "search", "search", "forget", "walk", "walk"];
      const procs = roles.map((role, i) => {
        const p = Bun.spawn([process.execPath, MIXER, dir.path, role, String(i), String(SECONDS)], { stdout: "pipe", stderr: "pipe" });
        return { role, p, out: new Response(p.stdout).text(), err: new Response(p.stderr).text() };
      });
      const results = await Promise.all(procs.map(async (x) => ({ ...x, code: await x.p.exited, out: await x.out, err: await x.err })));
      for (const r of results) {
        expect({ role: r.role, code: r.code, stderr: r.err }).toEqual({ role: r.role, code: 0, stderr: "" });
        const res = JSON.parse(/^result (.*)$/m.exec(r.out)![1]!);
        expect({ role: r.role, problems: res.problems }).toEqual({ role: r.role, problems: [] });
        expect(res.ops).toBeGreaterThan(0);
      }
      // Every acknowledged append is there exactly once (I2), LSNs strictly increasing (I1).
      const db = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
      const rows = db.query("SELECT lsn, text FROM tape WHERE kind = 'turn' AND forgotten_by IS NULL AND subject LIKE 'w/%' ORDER BY lsn").all() as {
        lsn: number;
        text: string;
      }[];
      const doomLeft = db.query("SELECT count(*) AS n FROM tape WHERE kind = 'turn' AND forgotten_by IS NULL AND subject LIKE 'doom/%'").get() as { n: number };
      const integrity = (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
      db.close();
      const byId = new Map(rows.map((r) => [r.text.split(" ")[0]!, r.lsn]));
      expect(byId.size).toBe(rows.length);
      let acks = 0;
      for (const r of results.filter((x) => x.role === "append")) {
        for (const [, lsn, wid] of r.out.matchAll(/^ack (\d+) (\S+)$/gm)) {
          acks++;
          expect({ wid, lsn: byId.get(wid!) }).toEqual({ wid, lsn: Number(lsn) });
        }
      }
      expect(acks).toBe(rows.length);
      expect(doomLeft.n).toBe(0);
      expect(integrity).toBe("ok");
    },
    (SECONDS + 60) * 1000,
  );
});
