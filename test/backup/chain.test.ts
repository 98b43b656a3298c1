/**
 * Issue 20: incremental backups (`backup --since`/`--after`) carry the
 * records after the earlier backup and the bytes of the objects they
 * reference, and `restore FULL INC1 INC2` rebuilds the store they were taken
 * from; a chain with a gap, a file of another store or of another copy, or a
 * damaged increment is refused naming the file, with nothing left behind.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ZERODB_SRC, filesContaining, runJson, runZ, tempDir } from "../helpers.ts";
import { blobs, headerOf, records } from "./_store.ts";

const WRITER = ZERODB_SRC.replace(/src\/main\.ts$/, "test/backup/writer.ts");

type Env = { home: string };

/** A writer process appending to `dataDir`, and the LSNs it has had acknowledged so far. */
function startWriter(dataDir: string, tag: string) {
  const proc = Bun.spawn(["bun", WRITER, dataDir, tag], { stdout: "pipe", stderr: "inherit" });
  const acked: number[] = [];
  const reading = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stdout) for (const l of dec.decode(chunk).split("\n")) if (l) acked.push(Number(l));
  })();
  return {
    acked,
    /** Waits (no sleeps on a clock: on the condition) until `n` more writes are acknowledged. */
    async more(n: number) {
      const want = acked.length + n;
      while (acked.length < want) await Bun.sleep(1);
      return Math.max(...acked);
    },
    async kill() {
      proc.kill(9);
      await proc.exited;
      await reading;
    },
  };
}

/** Live object digests of records at or below `last`. */
function liveObjects(all: any[], last: number): Set<string> {
  return new Set(all.filter((r) => r.lsn <= last && r.kind === "object" && !("forgotten_by" in r)).map((r) => r.object));
}

/** Runs a restore that must fail; checks that nothing is at the target and no temp dir beside it. */
async function refused(files: string[], env: Env, dst: string): Promise<string> {
  const r = await runZ(["restore", ...files, "--data-dir", dst], env);
  expect(r.code).not.toBe(0);
  expect(existsSync(dst)).toBe(false);
  expect(readdirSync(env.home).filter((n) => n.includes(".restore-"))).toEqual([]);
  return r.stderr;
}

describe("issue 20: incremental backups and restoring a chain", () => {
  test("a full backup and two increments taken while a writer runs restore the source as of the last one: records, LSNs, object bytes", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const src = join(home.path, "src");
    const d = ["--data-dir", src];
    await runJson(["append", "--session", "keep", "kept words", ...d], env);
    writeFileSync(join(home.path, "a.txt"), "object bytes forgotten between backups");
    const put = await runJson(["object", "put", join(home.path, "a.txt"), ...d], env);
    await runJson(["append", "--session", "gone", "words forgotten between backups", ...d], env);
    const writer = startWriter(src, "w");
    try {
      const ackedBeforeFull = await writer.more(8);
      const full = await runJson(["backup", "--out", join(home.path, "full.zdb"), ...d], env);
      expect(full).toMatchObject({ after: 0 });
      expect(full.last_lsn).toBeGreaterThanOrEqual(ackedBeforeFull);
      await writer.more(8);
      // Forgets between the backups: the increment carries them, and the restore purges what they hid.
      await runJson(["forget", "--object", put.object, ...d], env);
      await runJson(["forget", "--session", "gone", ...d], env);
      const inc1 = await runJson(["backup", "--since", join(home.path, "full.zdb"), "--out", join(home.path, "inc1.zdb"), ...d], env);
      await writer.more(8);
      const inc2 = await runJson(["backup", "--since", join(home.path, "inc1.zdb"), "--out", join(home.path, "inc2.zdb"), ...d], env);
      await writer.kill();
      expect(inc1.after).toBe(full.last_lsn);
      expect(inc2.after).toBe(inc1.last_lsn);

      const all = await records(src, env);
      // Each increment holds exactly the records after its start, and the bytes of the live objects among them.
      for (const inc of [inc1, inc2]) {
        const own = all.filter((r) => r.lsn > inc.after && r.lsn <= inc.last_lsn);
        expect(inc.records).toBe(own.length);
        expect(inc.objects).toBe(new Set(own.filter((r) => r.kind === "object" && !("forgotten_by" in r)).map((r) => r.object)).size);
        expect(inc.objects).toBeGreaterThan(0);
      }

      const dst = join(home.path, "dst");
      const files = ["full.zdb", "inc1.zdb", "inc2.zdb"].map((f) => join(home.path, f));
      const r = await runJson(["restore", ...files, "--data-dir", dst], env);
      expect(r).toMatchObject({ files: 3, last_lsn: inc2.last_lsn, store_id: headerOf(files[0]!).store_id });
      expect(await records(dst, env)).toEqual(all.filter((x) => x.lsn <= inc2.last_lsn));
      const live = liveObjects(all, inc2.last_lsn);
      expect(new Set(blobs(dst).keys())).toEqual(live);
      for (const [digest, bytes] of blobs(dst)) expect(bytes).toEqual(blobs(src).get(digest)!);
      expect(r.objects).toBe(live.size);
      // What the increment's forgets hid is gone from the restored store, its bytes included (I9).
      expect(live.has(put.object)).toBe(false);
      expect(filesContaining(dst, "words forgotten between backups")).toEqual([]);
      expect(filesContaining(dst, "object bytes forgotten between backups")).toEqual([]);
      // The restored store continues after the last snapshot.
      const next = await runJson(["append", "--session", "keep", "more", "--data-dir", dst], env);
      expect(next.entries[0].lsn).toBe(inc2.last_lsn + 1);
    } finally {
      await writer.kill();
    }
  }, 60_000);

  test("a gap, a file of another store, a damaged, truncated or misplaced increment: refused naming the file, nothing left behind", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const a = join(home.path, "a");
    const b = join(home.path, "b");
    const f = (name: string) => join(home.path, name);
    writeFileSync(f("x.bin"), Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 31) % 256)));
    await runJson(["append", "--session", "s", "one", "--data-dir", a], env);
    await runJson(["backup", "--out", f("full.zdb"), "--data-dir", a], env);
    await runJson(["append", "--session", "s", "two in the first increment", "--data-dir", a], env);
    const obj = await runJson(["object", "put", f("x.bin"), "--data-dir", a], env);
    const inc1 = await runJson(["backup", "--since", f("full.zdb"), "--out", f("inc1.zdb"), "--data-dir", a], env);
    await runJson(["append", "--session", "s", "three", "--data-dir", a], env);
    const inc2 = await runJson(["backup", "--since", f("inc1.zdb"), "--out", f("inc2.zdb"), "--data-dir", a], env);
    await runJson(["append", "--session", "s", "other store", "--data-dir", b], env);
    await runJson(["backup", "--out", f("b-full.zdb"), "--data-dir", b], env);
    await runJson(["append", "--session", "s", "other store again", "--data-dir", b], env);
    await runJson(["backup", "--since", f("b-full.zdb"), "--out", f("b-inc.zdb"), "--data-dir", b], env);
    const dst = f("dst");

    // A gap: the first increment left out (or the files out of order).
    expect(await refused([f("full.zdb"), f("inc2.zdb")], env, dst)).toBe(
      `zerodb: ${f("inc2.zdb")}: holds the records after lsn ${inc2.after}, but the files before it end at lsn ${inc1.after}: the records in between are missing (an increment left out, or the files out of order); nothing was restored\n`,
    );
    expect(await refused([f("full.zdb"), f("inc2.zdb"), f("inc1.zdb")], env, dst)).toContain(`${f("inc2.zdb")}: holds the records after lsn`);
    // An increment of another store.
    expect(await refused([f("full.zdb"), f("b-inc.zdb")], env, dst)).toContain(`${f("b-inc.zdb")}: a backup of another store`);
    // An increment alone, or a full backup where an increment belongs.
    expect(await refused([f("inc1.zdb")], env, dst)).toContain(`${f("inc1.zdb")}: an increment (the records after lsn ${inc1.after})`);
    expect(await refused([f("full.zdb"), f("full.zdb")], env, dst)).toContain(`${f("full.zdb")}: a full backup, not an increment`);
    // A damaged increment: a record's byte, an object's byte, cut short.
    const good = readFileSync(f("inc1.zdb"));
    const text = good.toString("latin1");
    const rec = Buffer.from(good);
    rec[text.indexOf("two in the first increment")] = "T".charCodeAt(0);
    writeFileSync(f("bad-rec.zdb"), rec);
    expect(await refused([f("full.zdb"), f("bad-rec.zdb"), f("inc2.zdb")], env, dst)).toBe(
      `zerodb: ${f("bad-rec.zdb")}: the backup is damaged or truncated: record lsn ${inc1.after + 1} (line 2) fails its checksum; nothing was restored\n`,
    );
    const bytes = Buffer.from(good);
    const at = text.indexOf("\n", text.indexOf(`O ${obj.object} `)) + 100;
    bytes[at] = bytes[at]! ^ 0xff;
    writeFileSync(f("bad-obj.zdb"), bytes);
    expect(await refused([f("full.zdb"), f("bad-obj.zdb")], env, dst)).toContain(
      `${f("bad-obj.zdb")}: the backup is damaged or truncated: object ${obj.object}: its bytes hash to`,
    );
    writeFileSync(f("cut.zdb"), good.subarray(0, at));
    expect(await refused([f("full.zdb"), f("cut.zdb")], env, dst)).toContain(`${f("cut.zdb")}: the backup is damaged or truncated`);
    // The good chain restores.
    expect(await runJson(["restore", f("full.zdb"), f("inc1.zdb"), f("inc2.zdb"), "--data-dir", dst], env)).toMatchObject({ records: 4, objects: 1 });
    expect(await records(dst, env)).toEqual(await records(a, env));

    // backup --since refuses a file of another store, and --after past the store's end, writing no file.
    const other = await runZ(["backup", "--since", f("b-full.zdb"), "--out", f("no1.zdb"), "--data-dir", a], env);
    expect({ code: other.code, stderr: other.stderr.split(" (store")[0] }).toEqual({
      code: 1,
      stderr: `zerodb: since: ${f("b-full.zdb")} is a backup of another store`,
    });
    const ahead = await runZ(["backup", "--after", "999", "--out", f("no2.zdb"), "--data-dir", a], env);
    expect(ahead.code).not.toBe(0);
    expect(ahead.stderr).toContain("after: this store's last lsn is 4");
    const both = await runZ(["backup", "--after", "1", "--since", f("full.zdb"), "--out", f("no3.zdb"), "--data-dir", a], env);
    expect(both.stderr).toContain("give --since or --after, not both");
    expect(["no1.zdb", "no2.zdb", "no3.zdb"].filter((n) => existsSync(f(n)))).toEqual([]);
    expect(readdirSync(home.path).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  }, 60_000);

  test("a restored store keeps its source's store id: its own increments continue the source's backups; a copy and its source written apart are never mixed", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const f = (name: string) => join(home.path, name);
    const a = f("a");
    await runJson(["append", "--session", "s", "one", "--data-dir", a], env);
    await runJson(["append", "--session", "s", "two", "--data-dir", a], env);
    const full = await runJson(["backup", "--out", f("full.zdb"), "--data-dir", a], env);
    const b = f("b");
    const restored = await runJson(["restore", f("full.zdb"), "--data-dir", b], env);
    expect(restored.store_id).toBe(readFileSync(join(a, "zerodb.id"), "utf8").trim());
    expect(readFileSync(join(b, "zerodb.id"), "utf8")).toBe(readFileSync(join(a, "zerodb.id"), "utf8"));
    // Both are written to from here: the same LSNs now name different records in each.
    for (const w of ["b three", "b four", "b five"]) await runJson(["append", "--session", "s", w, "--data-dir", b], env);
    await runJson(["append", "--session", "s", "a three", "--data-dir", a], env);

    // The copy's increment continues the source's full backup: the chain rebuilds the copy.
    const incB = await runJson(["backup", "--since", f("full.zdb"), "--out", f("inc-b.zdb"), "--data-dir", b], env);
    expect(incB).toMatchObject({ after: full.last_lsn, records: 3 });
    expect(headerOf(f("inc-b.zdb")).lineage.length).toBe(2);
    await runJson(["restore", f("full.zdb"), f("inc-b.zdb"), "--data-dir", f("c")], env);
    expect(await records(f("c"), env)).toEqual(await records(b, env));
    // And the source's own increment rebuilds the source.
    await runJson(["backup", "--since", f("full.zdb"), "--out", f("inc-a.zdb"), "--data-dir", a], env);
    await runJson(["restore", f("full.zdb"), f("inc-a.zdb"), "--data-dir", f("d")], env);
    expect(await records(f("d"), env)).toEqual(await records(a, env));

    // The copy cannot continue the source's later backup, nor be restored on top of it.
    const since = await runZ(["backup", "--since", f("inc-a.zdb"), "--out", f("x.zdb"), "--data-dir", b], env);
    expect(since.code).toBe(1);
    expect(since.stderr).toContain(`since: ${f("inc-a.zdb")} was taken from another copy of this store`);
    expect(existsSync(f("x.zdb"))).toBe(false);
    const lastA = headerOf(f("inc-a.zdb")).last_lsn;
    await runJson(["backup", "--after", String(lastA), "--out", f("inc-b2.zdb"), "--data-dir", b], env);
    expect(await refused([f("full.zdb"), f("inc-a.zdb"), f("inc-b2.zdb")], env, f("e"))).toContain(
      `${f("inc-b2.zdb")}: taken from another copy of this store (one restored from the same backup and written to since)`,
    );
  }, 60_000);
});
