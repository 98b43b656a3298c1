/**
 * Issue 29 item 5: restore checks what a backup's records mean, not only
 * their checksums. Each case takes a real backup apart, changes what it
 * says, signs it again (every line sum and the trailer recomputed, as
 * anyone can) and restores it: refused with one typed error naming what is
 * wrong, nothing at the target, no temp dir beside it.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { restoreStore } from "../../src/store/open.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { lineBatch } from "../capture/_batches.ts";
import { tempDir } from "../helpers.ts";
import { type BackupParts, parseBackup, writeBackup } from "./_resign.ts";

/** A store of two tenants: turns, an object, a capture cursor and a token each; backed up whole and for `local`. */
async function seeded(dir: string): Promise<{ full: BackupParts; local: BackupParts }> {
  const s = openSqliteStore(join(dir, "src"));
  try {
    const local = s.memory("local");
    await local.append({ session: "p/one", entries: [{ role: "user", content: "hello" }] });
    await s.memory("other").append({ session: "o", entries: [{ role: "note", content: "theirs" }] });
    await local.objectPut(new TextEncoder().encode("object bytes\n"), { name: "a.txt" });
    await local.append({ session: "p/one", entries: [{ role: "assistant", content: "hi there" }] });
    await s.capture("local").commit(lineBatch(0, 2));
    await s.capture("other").commit(lineBatch(0, 1, { source: "theirs", session: "q-00000000/abc" }));
    await s.tokens.create({ tenant: "local" });
    await s.tokens.create({ tenant: "other" });
    const take = (tenant?: string) => {
      const b = s.backup!(tenant ? { tenant } : {});
      return parseBackup(Buffer.concat([...b.chunks]));
    };
    return { full: take(), local: take("local") };
  } finally {
    s.close();
  }
}

/** Restores a re-signed backup; returns the error it is refused with, checking nothing was left behind. */
async function refusal(dir: string, parts: BackupParts, name: string): Promise<{ code: string; field?: string; message: string }> {
  const file = join(dir, `${name}.zdb`);
  writeFileSync(file, writeBackup(parts));
  const dst = join(dir, `dst-${name}`);
  let caught: unknown;
  try {
    await restoreStore([file], { dataDir: dst });
  } catch (err) {
    caught = err;
  }
  expect(existsSync(dst)).toBe(false);
  expect(readdirSync(dir).filter((n) => n.includes(".restore-"))).toEqual([]);
  expect(caught).toBeDefined();
  const e = caught as { name: string; code: string; field?: string; message: string };
  expect(e.name).toBe("ZeroDbError");
  expect(e.message).not.toContain("\n");
  return { code: e.code, field: e.field, message: e.message.replace(`${file}: `, "") };
}

const copy = (p: BackupParts): BackupParts => ({ ...structuredClone({ ...p, objects: [] }), objects: p.objects });

describe("issue 29 item 5: restore judges what a re-signed backup says", () => {
  test("the re-signed backup as taken restores (the helper signs as zerodb does)", async () => {
    using dir = tempDir();
    const { full, local } = await seeded(dir.path);
    for (const [name, parts] of [
      ["full", full],
      ["local", local],
    ] as const) {
      writeFileSync(join(dir.path, `${name}.zdb`), writeBackup(parts));
      const r = await restoreStore([join(dir.path, `${name}.zdb`)], { dataDir: join(dir.path, `ok-${name}`) });
      expect(r.records).toBe(parts.records.length);
    }
  });

  test("a header last_lsn past what a store can hand out, or that is not where the records end", async () => {
    using dir = tempDir();
    const { full, local } = await seeded(dir.path);
    const last = full.records.at(-1)!.lsn as number;
    const huge = copy(full);
    huge.header.last_lsn = 2 ** 53 - 1;
    expect(await refusal(dir.path, huge, "huge")).toEqual({
      code: "invalid_input",
      field: "header.last_lsn",
      message: `header.last_lsn: ${2 ** 53 - 1} is past the highest lsn a restore takes (${2 ** 52}): no store reaches it, and its copy would run out of lsns; nothing was restored`,
    });
    // A tenant's backup may end past its own records (other tenants wrote after), but not past that ceiling.
    const hugeTenant = copy(local);
    hugeTenant.header.last_lsn = 2 ** 53 - 1;
    expect((await refusal(dir.path, hugeTenant, "huge-tenant")).field).toBe("header.last_lsn");
    // A whole store's backup ends at its last record.
    const beyond = copy(full);
    beyond.header.last_lsn = last + 1000;
    expect(await refusal(dir.path, beyond, "beyond")).toMatchObject({
      code: "invalid_input",
      field: "header.last_lsn",
      message: `header.last_lsn: ${last + 1000}, but the file's records end at lsn ${last}: a backup of every tenant ends at the store's last record; nothing was restored`,
    });
    const below = copy(full);
    below.header.last_lsn = last - 1;
    expect(await refusal(dir.path, below, "below")).toMatchObject({
      code: "invalid_input",
      field: `record lsn ${last}.lsn`,
      message: `record lsn ${last}.lsn: past the header's last_lsn ${last - 1}; nothing was restored`,
    });
  });

  test("a tenant's backup holding another tenant's record, token or cursor", async () => {
    using dir = tempDir();
    const { full, local } = await seeded(dir.path);
    const theirs = full.records.find((r) => r.tenant === "other")!;
    const planted = copy(local);
    planted.records = [...planted.records, theirs].sort((a, b) => a.lsn - b.lsn);
    expect(await refusal(dir.path, planted, "record")).toEqual({
      code: "invalid_input",
      field: `record lsn ${theirs.lsn}.tenant`,
      message: `record lsn ${theirs.lsn}.tenant: a record of tenant other in a backup of tenant local; nothing was restored`,
    });
    const token = copy(local);
    token.tokens.push(full.tokens.find((t) => t.tenant === "other")!);
    expect(await refusal(dir.path, token, "token")).toMatchObject({ code: "invalid_input", field: expect.stringMatching(/^token line \d+\.tenant$/) });
    const cursor = copy(local);
    cursor.cursors.push(full.cursors.find((c) => c.tenant === "other")!);
    expect(await refusal(dir.path, cursor, "cursor")).toMatchObject({ code: "invalid_input", field: expect.stringMatching(/^cursor line \d+\.tenant$/) });
  });

  test("an object record whose size is not its bytes' size", async () => {
    using dir = tempDir();
    const { full } = await seeded(dir.path);
    const lied = copy(full);
    const rec = lied.records.find((r) => r.kind === "object")!;
    rec.size = 1 << 30;
    expect(await refusal(dir.path, lied, "size")).toEqual({
      code: "invalid_input",
      field: `record lsn ${rec.lsn}.size`,
      message: `record lsn ${rec.lsn}.size: object ${rec.object} says ${1 << 30} bytes, its bytes are 13; nothing was restored`,
    });
  });

  test("a capture cursor naming a file that is not a transcript", async () => {
    using dir = tempDir();
    const { full } = await seeded(dir.path);
    const cases: [string, string][] = [
      ["/etc/shadow", "is not a transcript (a .jsonl, .jsonl.zst or .json file)"],
      ["t/sid.jsonl", "is not an absolute path"],
      ["/t/../etc/sid.jsonl", "holds a . or .. segment"],
      ["/t/sid\n.jsonl", "holds a control character"],
    ];
    for (const [i, [path, why]] of cases.entries()) {
      const bad = copy(full);
      bad.cursors[0]!.path = path;
      const line = 2 + bad.records.length + bad.tokens.length;
      expect(await refusal(dir.path, bad, `cursor-${i}`)).toEqual({
        code: "invalid_input",
        field: `cursor line ${line}.path`,
        message: `cursor line ${line}.path: ${JSON.stringify(path)} ${why}; nothing was restored`,
      });
    }
    // An opencode session's cursor names opencode's database, whatever $OPENCODE_DB called it: an absolute path still.
    const oc = copy(full);
    Object.assign(oc.cursors[0]!, { source: "opencode:ses_abc", path: "opencode.db" });
    expect((await refusal(dir.path, oc, "opencode")).message).toContain('"opencode.db" is not an absolute path');
    Object.assign(oc.cursors[0]!, { path: "/srv/oc/sessions.sqlite" });
    writeFileSync(join(dir.path, "oc.zdb"), writeBackup(oc));
    expect((await restoreStore([join(dir.path, "oc.zdb")], { dataDir: join(dir.path, "ok-oc") })).cursors).toBe(full.cursors.length);
  });

  test("LSNs that do not increase, repeat, are not positive whole numbers; times no store wrote", async () => {
    using dir = tempDir();
    const { full } = await seeded(dir.path);
    const swapped = copy(full);
    [swapped.records[0], swapped.records[1]] = [swapped.records[1]!, swapped.records[0]!];
    expect((await refusal(dir.path, swapped, "order")).message).toMatch(/^line 2: lsn 1 is not greater than 2;/);
    const dup = copy(full);
    dup.records[1]!.lsn = dup.records[0]!.lsn;
    expect((await refusal(dir.path, dup, "dup")).message).toMatch(/^line 2: lsn 1 is not greater than 1;/);
    for (const lsn of [-1, 0, 1.5]) {
      const bad = copy(full);
      bad.records[0]!.lsn = lsn;
      expect(await refusal(dir.path, bad, `lsn${lsn}`)).toMatchObject({ code: "invalid_input", field: "line 1.lsn" });
    }
    const future = copy(full);
    future.records[0]!.ts = "9999-01-01T00:00:00.000Z";
    expect(await refusal(dir.path, future, "future")).toMatchObject({
      code: "invalid_input",
      field: "line 1.ts",
      message: expect.stringMatching(/^line 1\.ts: 9999-01-01T00:00:00\.000Z is in the future \(this machine's clock says .*\); nothing was restored$/),
    });
    const junk = copy(full);
    junk.records[0]!.ts = "yesterday";
    expect(await refusal(dir.path, junk, "junk")).toMatchObject({
      field: "line 1.ts",
      message: expect.stringContaining('"yesterday" is not an ISO 8601 UTC time'),
    });
    const early = copy(full);
    early.records[0]!.ts = "1969-12-31T23:59:59.000Z";
    expect((await refusal(dir.path, early, "early")).message).toContain("is before 1970");
    const created = copy(full);
    created.header.created = "not a time";
    expect(await refusal(dir.path, created, "created")).toMatchObject({ field: "header.created" });
    const tok = copy(full);
    tok.tokens[0]!.revoked = tok.tokens[0]!.created - 1;
    expect((await refusal(dir.path, tok, "revoked")).message).toContain("before the token was created");
  });

  test("the file as damaged is still reported as damaged, not as what the damage says", async () => {
    using dir = tempDir();
    const { local } = await seeded(dir.path);
    const bytes = writeBackup(copy(local));
    // A header byte changed without re-signing: the tenant now names another tenant than the records'.
    const at = bytes.indexOf('"tenant":"local"') + 10;
    bytes[at] = "x".charCodeAt(0);
    const file = join(dir.path, "damaged.zdb");
    writeFileSync(file, bytes);
    expect(readFileSync(file, "utf8")).toContain('"tenant":"xocal"');
    await expect(restoreStore([file], { dataDir: join(dir.path, "dst") })).rejects.toThrow("the file's digest does not match its trailer");
  });
});
