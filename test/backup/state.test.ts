/**
 * Issue 20: what lives beside the tape travels with a backup. HTTP tokens
 * (as the digests the store keeps) and capture cursors are restored, the
 * last file of a chain giving their state; a tenant's backup holds only its
 * own. A backup file of format 1 (no tokens, cursors or lineage) still
 * restores.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import type { Store } from "../../src/store/types.ts";
import { lineBatch } from "../capture/_batches.ts";
import { runJson, tempDir } from "../helpers.ts";
import { records } from "./_store.ts";

/** Opens a store, runs `fn` on it, closes it. */
async function using<T>(dataDir: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const s = openSqliteStore(dataDir);
  try {
    return await fn(s);
  } finally {
    s.close();
  }
}

/** Tokens and every tenant's cursors of a store, to compare two stores by. */
async function state(s: Store) {
  return { tokens: await s.tokens.list(), local: await s.capture("local").cursors(), other: await s.capture("other").cursors() };
}

describe("issue 20: tokens and capture cursors in backups", () => {
  test("restored, kept current by increments, and only a tenant's own in its backup", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const src = join(home.path, "src");
    const f = (n: string) => join(home.path, n);
    const [live, revoked, theirs] = await using(src, async (s) => {
      const t = [await s.tokens.create({ tenant: "local" }), await s.tokens.create({ tenant: "local" }), await s.tokens.create({ tenant: "other" })];
      await s.tokens.revoke({ id: t[1]!.id });
      await s.capture("local").commit(lineBatch(0, 3));
      await s.capture("other").commit(lineBatch(0, 2, { source: "theirs" }));
      return t;
    });
    const full = await runJson(["backup", "--out", f("full.zdb"), "--data-dir", src], env);
    expect(full).toMatchObject({ tokens: 3, cursors: 2 });
    // The file holds the digests the store keeps, never a secret.
    expect(readFileSync(f("full.zdb"), "latin1")).not.toContain(live!.token);
    expect(await runJson(["restore", f("full.zdb"), "--data-dir", f("dst")], env)).toMatchObject({ tokens: 3, cursors: 2 });
    const want = await using(src, state);
    await using(f("dst"), async (d) => {
      expect(await state(d)).toEqual(want);
      expect(await d.tokens.verify(live!.token)).toBe("local");
      expect(await d.tokens.verify(revoked!.token)).toBeUndefined();
      expect(await d.tokens.verify(theirs!.token)).toBe("other");
      // Capture resumes where it stood: a replay of what it stored appends nothing.
      expect(await d.capture("local").commit(lineBatch(0, 3))).toMatchObject({ status: "moved" });
    });

    // After the full backup: a token revoked, a new one, a cursor moved. The increment's state wins.
    const later = await using(src, async (s) => {
      await s.tokens.revoke({ id: live!.id });
      const t = await s.tokens.create({ tenant: "local" });
      await s.capture("local").commit(lineBatch(3, 5));
      return t;
    });
    const inc = await runJson(["backup", "--since", f("full.zdb"), "--out", f("inc.zdb"), "--data-dir", src], env);
    expect(inc).toMatchObject({ records: 2, tokens: 4, cursors: 2 });
    await runJson(["restore", f("full.zdb"), f("inc.zdb"), "--data-dir", f("dst2")], env);
    const now = await using(src, state);
    await using(f("dst2"), async (d) => {
      expect(await state(d)).toEqual(now);
      expect(await d.tokens.verify(live!.token)).toBeUndefined();
      expect(await d.tokens.verify(later.token)).toBe("local");
    });
    expect(await records(f("dst2"), env)).toEqual(await records(src, env));

    // One tenant's backup: its tokens and cursors only.
    await runJson(["backup", "--tenant", "other", "--out", f("other.zdb"), "--data-dir", src], env);
    await runJson(["restore", f("other.zdb"), "--data-dir", f("dst3")], env);
    await using(f("dst3"), async (d) => {
      expect(await state(d)).toEqual({ tokens: { tokens: now.tokens.tokens.filter((t) => t.tenant === "other") }, local: [], other: now.other });
      expect(await d.tokens.verify(later.token)).toBeUndefined();
    });
  });

  test("a backup file of format 1 (no tokens, cursors or lineage) still restores", async () => {
    using home = tempDir();
    const env = { home: home.path };
    const src = join(home.path, "src");
    await runJson(["append", "--session", "s", "from an older zerodb", "--data-dir", src], env);
    writeFileSync(join(home.path, "o.txt"), "object of an older backup");
    await runJson(["object", "put", join(home.path, "o.txt"), "--data-dir", src], env);
    await runJson(["backup", "--out", join(home.path, "v2.zdb"), "--data-dir", src], env);
    // Format 1 as the previous release wrote it: its header, records and objects, its trailer over them.
    const lines = readFileSync(join(home.path, "v2.zdb"), "latin1").split("\n");
    const h = JSON.parse(lines[0]!.split(" ").slice(2).join(" "));
    const head = `ZERODB-BACKUP 1 ${JSON.stringify({ store_id: h.store_id, tenant: null, last_lsn: h.last_lsn, created: h.created })}`;
    const body = `${[head, ...lines.slice(1, -2).filter((l) => !/^[TC] /.test(l))].join("\n")}\n`;
    const bytes = Buffer.from(body, "latin1");
    const trailer = { records: 2, objects: 1, sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex") };
    writeFileSync(join(home.path, "v1.zdb"), Buffer.concat([bytes, Buffer.from(`END ${JSON.stringify(trailer)}\n`)]));
    const r = await runJson(["restore", join(home.path, "v1.zdb"), "--data-dir", join(home.path, "dst")], env);
    expect(r).toMatchObject({ records: 2, objects: 1, tokens: 0, cursors: 0, last_lsn: 2, store_id: h.store_id });
    expect(await records(join(home.path, "dst"), env)).toEqual(await records(src, env));
  });
});
