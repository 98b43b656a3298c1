/**
 * Issue 20: `export --after LSN` writes only newer records, and importing
 * such an increment into the store it came from, or a restore of it,
 * continues it without duplicates, forgets included.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { filesContaining, runJson, runZ, tempDir } from "../helpers.ts";

type Env = { home: string };

async function exportOf(dataDir: string, env: Env, after?: number): Promise<string> {
  const r = await runZ(["export", "--data-dir", dataDir, ...(after !== undefined ? ["--after", String(after)] : [])], env);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return r.stdout;
}

const lsns = (jsonl: string) =>
  jsonl
    .split("\n")
    .filter((l) => l)
    .map((l) => JSON.parse(l).lsn);

describe("issue 20: export --after and increments", () => {
  test("an increment continues a restored copy: same records, no duplicates, forgets purge the copy too", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const src = join(home.path, "src");
    const d = ["--data-dir", src];
    await runJson(["append", "--session", "a", "one", ...d], env);
    await runJson(["append", "--session", "old", "forget this old line", ...d], env);
    const file = join(home.path, "b.zdb");
    const b = await runJson(["backup", "--out", file, ...d], env);
    const copy = join(home.path, "copy");
    await runJson(["restore", file, "--data-dir", copy], env);
    const oldLine = (await exportOf(copy, env)).split("\n")[1]!;

    await runJson(["append", "--session", "a", "two", ...d], env);
    await runJson(["fact", "set", "k", "3", ...d], env);
    await runJson(["forget", "--session", "old", ...d], env);
    const inc = await exportOf(src, env, b.last_lsn);
    expect(lsns(inc)).toEqual([3, 4, 5]);
    writeFileSync(join(home.path, "inc.jsonl"), inc);

    const r = await runJson(["import", join(home.path, "inc.jsonl"), "--data-dir", copy], env);
    expect(r).toMatchObject({ records: 3, last_lsn: 5, skipped: 0, purged: 1 });
    expect(await exportOf(copy, env)).toBe(await exportOf(src, env));
    // The forget in the increment purged the copy's bytes too (I9).
    expect(filesContaining(copy, "forget this old line")).toEqual([]);

    // The same increment again, and a full export over it: everything is already there, nothing is written twice.
    const again = await runJson(["import", join(home.path, "inc.jsonl"), "--data-dir", copy], env);
    expect(again).toMatchObject({ records: 3, skipped: 3, last_lsn: 5 });
    writeFileSync(join(home.path, "all.jsonl"), await exportOf(src, env));
    expect(await runJson(["import", join(home.path, "all.jsonl"), "--data-dir", copy], env)).toMatchObject({ skipped: 5 });
    expect(await exportOf(copy, env)).toBe(await exportOf(src, env));
    // An export taken before the forget cannot bring the forgotten record back into the copy.
    const older = join(home.path, "older.jsonl");
    writeFileSync(older, `${(await exportOf(copy, env)).split("\n")[0]}\n${oldLine}\n`);
    const back = await runZ(["import", older, "--data-dir", copy], env);
    expect(back.code).toBe(1);
    expect(back.stderr).toContain("record 2 differs from this store's record 2");
    expect(filesContaining(copy, "forget this old line")).toEqual([]);
    // Into the store it came from: the same, nothing written.
    expect(await runJson(["import", join(home.path, "inc.jsonl"), ...d], env)).toMatchObject({ skipped: 3 });
    expect(lsns(await exportOf(src, env))).toEqual([1, 2, 3, 4, 5]);
  });

  test("an increment from another store is refused naming the record, and nothing is written", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const a = join(home.path, "a");
    const other = join(home.path, "other");
    await runJson(["append", "--session", "a", "one", "--data-dir", a], env);
    await runJson(["append", "--session", "a", "two", "--data-dir", a], env);
    await runJson(["append", "--session", "x", "different", "--data-dir", other], env);
    writeFileSync(join(home.path, "a.jsonl"), await exportOf(a, env));
    const before = await exportOf(other, env);
    const r = await runZ(["import", join(home.path, "a.jsonl"), "--data-dir", other], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("line 1: record 1 differs from this store's record 1: the file does not continue this store");
    expect(await exportOf(other, env)).toBe(before);
  });

  test("an export says how many object references it holds without their bytes", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const d = ["--data-dir", join(home.path, "d")];
    writeFileSync(join(home.path, "a.txt"), "bytes");
    await runJson(["object", "put", join(home.path, "a.txt"), ...d], env);
    await runJson(["append", "--session", "s", "x", ...d], env);
    const out = join(home.path, "e.jsonl");
    expect(await runJson(["export", "--out", out, ...d], env)).toEqual({ records: 2, out, object_refs_without_bytes: 1 });
    const inc = join(home.path, "inc.jsonl");
    expect(await runJson(["export", "--after", "1", "--out", inc, ...d], env)).toEqual({ records: 1, out: inc });
  });

  test("--after must be an LSN", async () => {
    using home = tempDir();
    const r = await runZ(["export", "--after", "x", "--data-dir", join(home.path, "d")], { home: home.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("after: must be a whole number");
  });
});
