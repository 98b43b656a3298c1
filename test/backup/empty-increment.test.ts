/**
 * An increment that holds nothing restores. Backups run on a schedule, so
 * `backup --since` on an empty store, or with nothing new since the file it
 * continues, is ordinary; such an increment starts at lsn 0 (an empty
 * store's) or ends where it starts, and `restore` takes it in its place.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runJson, runZ, tempDir } from "../helpers.ts";
import { headerOf, records } from "./_store.ts";

describe("empty increments", () => {
  test("empty full backup -> empty increment -> records -> increment -> nothing new: the chain restores", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const f = (name: string) => join(home.path, name);
    const d = ["--data-dir", f("src")];
    const full = await runJson(["backup", "--out", f("full.zdb"), ...d], env);
    expect(full).toMatchObject({ records: 0, after: 0, last_lsn: 0 });
    const inc1 = await runJson(["backup", "--since", f("full.zdb"), "--out", f("inc1.zdb"), ...d], env);
    expect(inc1).toMatchObject({ records: 0, after: 0, last_lsn: 0 });

    // The empty chain alone restores into an empty store.
    const empty = await runZ(["restore", f("full.zdb"), f("inc1.zdb"), "--data-dir", f("dst0"), "--json"], env);
    expect({ code: empty.code, stderr: empty.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(empty.stdout)).toMatchObject({ records: 0, files: 2, last_lsn: 0 });

    await runJson(["append", "--session", "s", "after the empty backups", ...d], env);
    const inc2 = await runJson(["backup", "--since", f("inc1.zdb"), "--out", f("inc2.zdb"), ...d], env);
    expect(inc2).toMatchObject({ records: 1, after: 0, last_lsn: 1 });
    const inc3 = await runJson(["backup", "--since", f("inc2.zdb"), "--out", f("inc3.zdb"), ...d], env);
    expect(inc3).toMatchObject({ records: 0, after: 1, last_lsn: 1 });
    expect(headerOf(f("inc3.zdb"))).toMatchObject({ after: 1, last_lsn: 1 });

    const files = ["full.zdb", "inc1.zdb", "inc2.zdb", "inc3.zdb"].map(f);
    const r = await runZ(["restore", ...files, "--data-dir", f("dst"), "--json"], env);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(r.stdout)).toMatchObject({ records: 1, files: 4, last_lsn: 1 });
    expect(await records(f("dst"), env)).toEqual(await records(f("src"), env));
    // The restored store continues after the chain's end.
    const next = await runJson(["append", "--session", "s", "more", "--data-dir", f("dst")], env);
    expect(next.entries[0].lsn).toBe(2);
  }, 60_000);

  test("a full backup after records is still refused where an increment belongs", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const f = (name: string) => join(home.path, name);
    const d = ["--data-dir", f("src")];
    await runJson(["append", "--session", "s", "one", ...d], env);
    await runJson(["backup", "--out", f("a.zdb"), ...d], env);
    await runJson(["backup", "--out", f("b.zdb"), ...d], env);
    const r = await runZ(["restore", f("a.zdb"), f("b.zdb"), "--data-dir", f("dst")], env);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
    expect(r.stderr).toBe(`zerodb: ${f("b.zdb")}: a full backup, not an increment: restore takes one full backup, then its increments; nothing was restored\n`);
  }, 60_000);
});
