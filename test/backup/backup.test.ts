/**
 * Issue 20: `zerodb backup` and `zerodb restore`, driven through the built
 * binary: round trip equality, refusals of damaged and truncated files,
 * --tenant, forget semantics, and backups of a store a writer keeps
 * appending to while it is killed with SIGKILL at random points.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ZERODB_SRC, filesContaining, runJson, runZ, tempDir } from "../helpers.ts";
import { blobs, records } from "./_store.ts";

type Env = { home: string };

/** A store with two tenants, turns, facts, a link, objects (one binary) and a forget. */
async function seed(dataDir: string, env: Env): Promise<{ digest: string; binary: string }> {
  const d = ["--data-dir", dataDir];
  const ok = async (args: string[], tenant = "local") => runJson([...args, ...d, "--tenant", tenant], env);
  await ok(["append", "--session", "p/one", "--role", "user", "hello wörld", "--idem-key", "k1"]);
  await ok(["append", "--session", "p/one", "--role", "assistant", "hi there"]);
  await ok(["fact", "set", "k", '{"deep":true}']);
  await ok(["link", "add", "https://example.com/x", "--title", "example"]);
  writeFileSync(join(env.home, "a.txt"), "object bytes\n");
  const bin = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256));
  writeFileSync(join(env.home, "b.bin"), bin);
  const a = await ok(["object", "put", join(env.home, "a.txt")]);
  const b = await ok(["object", "put", join(env.home, "b.bin")]);
  await ok(["append", "--session", "gone", "secret words"]);
  await ok(["forget", "--session", "gone"]);
  await ok(["append", "--session", "o", "theirs"], "other");
  await ok(["object", "put", join(env.home, "a.txt")], "other");
  return { digest: a.object, binary: b.object };
}

describe("issue 20: backup and restore", () => {
  test("round trip: same records, same LSNs, same object bytes; the file is 0600 and never overwritten", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const src = join(home.path, "src");
    await seed(src, env);
    const file = join(home.path, "b.zdb");
    const b = await runJson(["backup", "--out", file, "--data-dir", src], env);
    expect(b).toMatchObject({ records: 10, objects: 2, out: file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = await runZ(["backup", "--out", file, "--data-dir", src], env);
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 1, stderr: `zerodb: ${file} exists; backup never overwrites a file\n` });

    const dst = join(home.path, "dst");
    const r = await runJson(["restore", file, "--data-dir", dst], env);
    expect(r).toMatchObject({ records: 10, objects: 2, last_lsn: b.last_lsn, data_dir: dst, tenant: null });
    expect(await records(dst, env)).toEqual(await records(src, env));
    expect(blobs(dst)).toEqual(blobs(src));
    const read = await runJson(["read", "--session", "p/one", "--data-dir", dst], env);
    expect(read.turns.map((t: { content: string }) => t.content)).toEqual(["hello wörld", "hi there"]);
    // The restored store continues the tape: the next LSN follows the last restored one.
    const next = await runJson(["append", "--session", "p/one", "more", "--data-dir", dst], env);
    expect(next.entries[0].lsn).toBeGreaterThan(b.last_lsn);
    // The idempotency key came along (I3).
    const dup = await runJson(["append", "--session", "p/one", "--role", "user", "hello wörld", "--idem-key", "k1", "--data-dir", dst], env);
    expect(dup.entries[0]).toEqual({ lsn: 1, duplicate: true });
  });

  test("--tenant backs up one tenant's records and only the objects it references", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const src = join(home.path, "src");
    const { digest } = await seed(src, env);
    const file = join(home.path, "t.zdb");
    const b = await runJson(["backup", "--out", file, "--tenant", "other", "--data-dir", src], env);
    expect(b).toMatchObject({ records: 2, objects: 1 });
    const dst = join(home.path, "dst");
    expect(await runJson(["restore", file, "--data-dir", dst], env)).toMatchObject({ records: 2, objects: 1, tenant: "other" });
    expect(await records(dst, env)).toEqual(await records(src, env, "other"));
    expect([...blobs(dst).keys()]).toEqual([digest]);
    expect(await records(dst, env, "local")).toEqual([]);
  });

  test("a damaged or truncated backup is refused naming the record or object, and nothing is left behind", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const src = join(home.path, "src");
    const { binary } = await seed(src, env);
    const file = join(home.path, "b.zdb");
    await runJson(["backup", "--out", file, "--data-dir", src], env);
    const good = readFileSync(file);
    const text = good.toString("latin1");
    const restoreOf = async (bytes: Buffer, name: string) => {
      const f = join(home.path, name);
      writeFileSync(f, bytes);
      const dst = join(home.path, `dst-${name}`);
      const r = await runZ(["restore", f, "--data-dir", dst], env);
      // Nothing at the target, no temp dir beside it.
      expect(existsSync(dst)).toBe(false);
      expect(readdirSync(home.path).filter((n) => n.includes(".restore-"))).toEqual([]);
      return r;
    };
    // A byte changed inside record lsn 2's content.
    const at = text.indexOf("hi there");
    const rec = Buffer.from(good);
    rec[at] = "H".charCodeAt(0);
    const r1 = await restoreOf(rec, "rec.zdb");
    expect(r1.code).toBe(1);
    expect(r1.stderr).toContain("record lsn 2 (line 3) fails its checksum");
    // A byte changed inside the binary object's bytes.
    const obj = Buffer.from(good);
    const frame = text.indexOf(`O ${binary} `);
    const start = text.indexOf("\n", frame) + 1000;
    obj[start] = obj[start]! ^ 0xff;
    const r2 = await restoreOf(obj, "obj.zdb");
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain(`object ${binary}: its bytes hash to sha256:`);
    // Truncated at many points: always refused.
    for (const cut of [10, text.indexOf("\nR ") + 20, frame + 5, start, good.length - 30, good.length - 1]) {
      const r = await restoreOf(good.subarray(0, cut), `cut-${cut}.zdb`);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/damaged or truncated|not a zerodb backup/);
    }
    // A byte changed in the header (not covered by a record sum): the trailer's digest catches it.
    const hdr = Buffer.from(good);
    hdr[text.indexOf('"created":"') + 11] = "9".charCodeAt(0);
    const r3 = await restoreOf(hdr, "hdr.zdb");
    expect(r3.stderr).toContain("the file's digest does not match its trailer");
    // Not a backup at all, a directory, a target whose parent is missing: one clear line each.
    expect((await restoreOf(Buffer.from("junk\n"), "junk.zdb")).stderr).toBe(
      `zerodb: ${join(home.path, "junk.zdb")}: not a zerodb backup (no ZERODB-BACKUP header)\n`,
    );
    const dirFile = await runZ(["restore", home.path, "--data-dir", join(home.path, "d1")], env);
    expect({ code: dirFile.code, stderr: dirFile.stderr }).toEqual({ code: 2, stderr: `zerodb: file: ${home.path} is a directory, not a backup\n` });
    const noParent = await runZ(["restore", file, "--data-dir", join(home.path, "no", "d2")], env);
    expect(noParent.stderr).toBe(`zerodb: data_dir: the directory ${join(home.path, "no")} does not exist\n`);
    // Bytes after the trailer.
    const r4 = await restoreOf(Buffer.concat([good, Buffer.from("x")]), "tail.zdb");
    expect(r4.stderr).toContain("bytes follow the END trailer");
  });

  test("restore refuses a non-empty dir, so it never rolls a store back over newer forgets", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const src = join(home.path, "src");
    await seed(src, env);
    await runJson(["append", "--session", "later", "forget me later", "--data-dir", src], env);
    const file = join(home.path, "b.zdb");
    await runJson(["backup", "--out", file, "--data-dir", src], env);
    await runJson(["forget", "--session", "later", "--data-dir", src], env);
    const over = await runZ(["restore", file, "--data-dir", src], env);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain("is not empty: restore only rebuilds into an empty or new dir");
    expect(filesContaining(src, "forget me later")).toEqual([]);
    // An older backup restored elsewhere holds what was forgotten after it was taken: a backup is a copy (README).
    const dst = join(home.path, "dst");
    await runJson(["restore", file, "--data-dir", dst], env);
    expect((await records(dst, env)).some((r) => r.content === "forget me later")).toBe(true);
    // An empty existing dir is fine.
    const empty = join(home.path, "empty");
    mkdirSync(empty, { mode: 0o700 });
    expect(await runJson(["restore", file, "--data-dir", empty], env)).toMatchObject({ data_dir: empty });
  });

  test("backups of a store a writer appends to, killed with SIGKILL at random points, each restore to a consistent prefix", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const src = join(home.path, "src");
    await runJson(["append", "--session", "start", "first", "--data-dir", src], env);
    const files: { file: string; last_lsn: number; acked: number }[] = [];
    for (let round = 0; round < 10; round++) {
      const writer = Bun.spawn(["bun", ZERODB_SRC.replace(/src\/main\.ts$/, "test/backup/writer.ts"), src, `r${round}`], { stdout: "pipe", stderr: "inherit" });
      const acked: number[] = [];
      const reader = (async () => {
        const dec = new TextDecoder();
        for await (const chunk of writer.stdout) for (const l of dec.decode(chunk).split("\n")) if (l) acked.push(Number(l));
      })();
      // Wait until the writer has written something (no sleeps: wait for the condition).
      while (acked.length < 3 + round) await Bun.sleep(1);
      const ackedBefore = Math.max(...acked);
      const file = join(home.path, `b${round}.zdb`);
      const backup = runJson(["backup", "--out", file, "--data-dir", src], env);
      // SIGKILL at a random point: before, during or after the backup.
      await Bun.sleep(Math.floor(Math.random() * 40));
      writer.kill(9);
      await writer.exited;
      await reader;
      const b = await backup;
      expect(b.last_lsn).toBeGreaterThanOrEqual(ackedBefore);
      files.push({ file, last_lsn: b.last_lsn, acked: ackedBefore });
    }
    const all = await records(src, env);
    for (const [i, f] of files.entries()) {
      const dst = join(home.path, `dst${i}`);
      const r = await runJson(["restore", f.file, "--data-dir", dst], env);
      expect(r.last_lsn).toBe(f.last_lsn);
      // Exactly the records at or below the snapshot's last LSN: no gap, nothing partial, nothing later.
      expect(await records(dst, env)).toEqual(all.filter((x) => x.lsn <= f.last_lsn));
      const live = new Set(all.filter((x) => x.lsn <= f.last_lsn && x.kind === "object").map((x) => x.object));
      expect(new Set(blobs(dst).keys())).toEqual(live);
      for (const [d, bytes] of blobs(dst)) expect(bytes).toEqual(blobs(src).get(d)!);
    }
  }, 120_000);
});
