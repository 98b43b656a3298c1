/**
 * A damaged store (bytes overwritten, truncated, a stray WAL, a swapped file)
 * is refused with a clear `corrupt` error; zerodb never silently serves wrong
 * data (I6, section 4a; issue 9).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { copyFileSync, openSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { runZ, tempDir } from "../helpers.ts";

const DB = "zerodb.sqlite";

/** A store with some turns and facts, closed (checkpointed) so everything is in the main file. */
async function seeded(dir: string, word = "pristine") {
  const s = openSqliteStore(dir);
  const m = s.memory("local");
  for (let i = 0; i < 40; i++) await m.append({ session: `s/${i % 4}`, entries: [{ role: "note", content: `${word} turn ${i} ${"pad ".repeat(50)}` }] });
  await m.factSet({ key: "k", value: { word } });
  s.close();
}

/** Overwrites bytes of a file at an offset. */
function overwrite(path: string, offset: number, bytes: Uint8Array) {
  const fd = openSync(path, "r+");
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

/** Every way of reading the store: each must succeed with right data or fail with `corrupt`. */
async function readEverything(dir: string): Promise<{ ok: boolean; codes: string[]; contents: string[] }> {
  const codes: string[] = [];
  const contents: string[] = [];
  let s;
  try {
    s = openSqliteStore(dir);
  } catch (e) {
    return { ok: false, codes: [(e as { code: string }).code], contents };
  }
  const m = s.memory("local");
  const attempt = async (fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (e) {
      codes.push((e as { code: string }).code);
    }
  };
  for (let i = 0; i < 4; i++) await attempt(async () => void contents.push(...(await m.read({ session: `s/${i}`, limit: 1000 })).turns.map((t) => t.content)));
  await attempt(async () => void contents.push(JSON.stringify((await m.factGet({ key: "k" })).value)));
  await attempt(async () => void (await m.search({ query: "turn" })));
  const check = await s.check();
  s.close();
  return { ok: check.ok && codes.length === 0, codes, contents };
}

describe("a damaged store is refused, never served", () => {
  test("bytes overwritten inside a record's content: reads fail with corrupt and the check names the record", async () => {
    using dir = tempDir();
    await seeded(dir.path);
    const file = join(dir.path, DB);
    const at = readFileSync(file).indexOf(Buffer.from("pristine turn 17 "));
    expect(at).toBeGreaterThan(0);
    overwrite(file, at, Buffer.from("poisoned"));
    const r = await readEverything(dir.path);
    expect(r.ok).toBe(false);
    expect(r.codes).toContain("corrupt");
    expect(new Set(r.codes)).toEqual(new Set(["corrupt"]));
    expect(r.contents.some((c) => c.includes("poisoned"))).toBe(false);
    const s = openSqliteStore(dir.path);
    expect((await s.check()).detail).toContain("checksum");
    s.close();
    // Through the CLI: one line, exit 1, the word "damaged".
    using home = tempDir();
    const cli = await runZ(["read", "--session", "s/1", "--data-dir", dir.path], { home: home.path });
    expect(cli.code).toBe(1);
    expect(cli.stderr.trim().split("\n")).toHaveLength(1);
    expect(cli.stderr).toContain("damaged");
  });

  test("a page overwritten with garbage: every operation either answers right or fails with corrupt", async () => {
    using dir = tempDir();
    await seeded(dir.path);
    const file = join(dir.path, DB);
    const pages = statSync(file).size / 4096;
    for (let page = 1; page < pages; page++) {
      using copy = tempDir();
      copyFileSync(file, join(copy.path, DB));
      copyFileSync(join(dir.path, "zerodb.id"), join(copy.path, "zerodb.id"));
      overwrite(join(copy.path, DB), page * 4096 + 100, crypto.getRandomValues(new Uint8Array(64)));
      const r = await readEverything(copy.path);
      expect(r.codes.every((c) => c === "corrupt")).toBe(true);
      for (const c of r.contents) expect(c).toMatch(/^(pristine turn \d+ (pad )+|\{"word":"pristine"\})$/);
    }
  });

  test("a truncated store file is refused with corrupt", async () => {
    using dir = tempDir();
    await seeded(dir.path);
    const file = join(dir.path, DB);
    truncateSync(file, Math.floor(statSync(file).size / 2));
    const r = await readEverything(dir.path);
    expect(r.ok).toBe(false);
    expect(new Set(r.codes)).toEqual(new Set(["corrupt"]));
  });

  test("a stray WAL: garbage is ignored, another store's WAL is refused", async () => {
    using dir = tempDir();
    await seeded(dir.path);
    // Garbage: SQLite's WAL header checksum rejects it; the data stays right.
    writeFileSync(join(dir.path, `${DB}-wal`), crypto.getRandomValues(new Uint8Array(8192)));
    const r1 = await readEverything(dir.path);
    expect(r1.ok).toBe(true);
    expect(r1.contents.length).toBe(41);
    // Another store's WAL, full of valid frames: refused, never served as this store's data.
    using other = tempDir();
    const o = openSqliteStore(other.path);
    o.db.run("PRAGMA wal_autocheckpoint = 0");
    for (let i = 0; i < 5; i++) await o.memory("local").append({ session: "s/1", entries: [{ role: "note", content: `intruder ${i}` }] });
    copyFileSync(join(other.path, `${DB}-wal`), join(dir.path, `${DB}-wal`));
    o.close();
    const r2 = await readEverything(dir.path);
    expect(r2.ok).toBe(false);
    expect(r2.codes).toEqual(["corrupt"]);
    expect(r2.contents.some((c) => c.includes("intruder"))).toBe(false);
  });

  test("a database file swapped in from another store is refused", async () => {
    using a = tempDir();
    using b = tempDir();
    await seeded(a.path);
    await seeded(b.path, "other");
    copyFileSync(join(b.path, DB), join(a.path, DB));
    let err: any;
    try {
      openSqliteStore(a.path);
    } catch (e) {
      err = e;
    }
    expect(err?.code).toBe("corrupt");
    expect(err?.message).toContain("zerodb.id");
  });

  test("a lost zerodb.id is restored from the database", async () => {
    using a = tempDir();
    await seeded(a.path);
    const id = readFileSync(join(a.path, "zerodb.id"), "utf8");
    const { rmSync } = await import("node:fs");
    rmSync(join(a.path, "zerodb.id"));
    const r = await readEverything(a.path);
    expect(r.ok).toBe(true);
    expect(readFileSync(join(a.path, "zerodb.id"), "utf8")).toBe(id);
    expect(statSync(join(a.path, "zerodb.id")).mode & 0o777).toBe(0o600);
    new Database(join(a.path, DB)).close();
  });
});
