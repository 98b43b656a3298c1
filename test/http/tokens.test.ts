/**
 * HTTP tokens (DESIGN.md section 2, 6.1): secrets shown once, only digests
 * stored, constant-time verification, revocation that takes effect in a
 * running server at once, and the `zerodb token` commands.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { sha256 } from "../../src/util/hash.ts";
import { runJson, runZ, tempDir } from "../helpers.ts";
import { startServer } from "./_server.ts";

describe("token store", () => {
  test("create shows the secret once; the store keeps only its SHA-256 digest", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const made = await store.tokens.create({ tenant: "alice" });
    expect(made.token).toMatch(/^zdb_[A-Za-z0-9_-]{43}$/);
    expect(made).toEqual({ id: expect.stringMatching(/^tok_[0-9a-f]{16}$/), tenant: "alice", created: expect.any(String), revoked: null, token: made.token });
    expect(Buffer.from(made.token.slice(4), "base64url")).toHaveLength(32);
    expect(await store.tokens.list()).toEqual({ tokens: [{ id: made.id, tenant: "alice", created: made.created, revoked: null }] });
    const other = await store.tokens.create({ tenant: "alice" });
    expect(other.token).not.toBe(made.token);
    store.close();

    const db = new Database(join(dir.path, "zerodb.sqlite"), { readonly: true });
    const rows = db.query("SELECT digest, id, tenant FROM tokens ORDER BY created, id").all() as { digest: Uint8Array; id: string }[];
    db.close();
    expect(rows.map((r) => Buffer.from(r.digest).toString("hex")).sort()).toEqual(
      [made.token, other.token].map((t) => Buffer.from(sha256(t)).toString("hex")).sort(),
    );
    for (const file of ["zerodb.sqlite", "zerodb.sqlite-wal"]) {
      let bytes = "";
      try {
        bytes = readFileSync(join(dir.path, file), "latin1");
      } catch {}
      expect(bytes).not.toContain(made.token.slice(4));
    }
  });

  test("verify: the tenant for a live token, undefined for anything else", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const a = await store.tokens.create({ tenant: "alice" });
    const b = await store.tokens.create({ tenant: "bob" });
    expect(await store.tokens.verify(a.token)).toBe("alice");
    expect(await store.tokens.verify(b.token)).toBe("bob");
    const last = a.token.at(-1) === "A" ? "B" : "A";
    for (const bad of [a.token.slice(0, -1) + last, a.token.slice(0, -1), `${a.token}A`, a.token.slice(4), "", "zdb_", a.token.toUpperCase()]) {
      expect(await store.tokens.verify(bad)).toBeUndefined();
    }
    expect(await store.tokens.verify(42 as unknown as string)).toBeUndefined();
    const revoked = await store.tokens.revoke({ id: a.id });
    expect(revoked).toEqual({ id: a.id, tenant: "alice", created: a.created, revoked: expect.any(String) });
    expect(await store.tokens.verify(a.token)).toBeUndefined();
    expect(await store.tokens.verify(b.token)).toBe("bob");
    // Revoking again keeps the first time.
    expect(await store.tokens.revoke({ id: a.id })).toEqual(revoked);
    store.close();
  });

  test("bad input is refused naming the field, and nothing is written", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    await expect(store.tokens.create({ tenant: "Not A Tenant" })).rejects.toMatchObject({ code: "invalid_input", field: "tenant" });
    await expect(store.tokens.create({ tenant: "" })).rejects.toMatchObject({ code: "invalid_input", field: "tenant" });
    await expect(store.tokens.create({ tenant: "alice", extra: 1 } as never)).rejects.toMatchObject({ code: "invalid_input", field: "extra" });
    await expect(store.tokens.revoke({ id: "tok_0000000000000000" })).rejects.toMatchObject({ code: "not_found", field: "id" });
    await expect(store.tokens.revoke({ id: "nope" })).rejects.toMatchObject({ code: "invalid_input", field: "id" });
    expect(await store.tokens.list()).toEqual({ tokens: [] });
    store.close();
    await expect(store.tokens.list()).rejects.toMatchObject({ code: "unavailable" });
  });
});

describe("zerodb token", () => {
  test("create prints the token once on stdout, with a notice on stderr; list never shows it", async () => {
    using dir = tempDir();
    const r = await runZ(["token", "create", "--tenant", "alice"], { home: dir.path });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^zdb_[A-Za-z0-9_-]{43}\n$/);
    expect(r.stderr).toMatch(/^token tok_[0-9a-f]{16} for tenant alice: it is shown only this once; store it now\n$/);
    const list = await runJson(["token", "list"], { home: dir.path });
    expect(list.tokens).toEqual([{ id: expect.any(String), tenant: "alice", created: expect.any(String), revoked: null }]);
    expect(JSON.stringify(list)).not.toContain(r.stdout.trim());
    const human = await runZ(["token", "list"], { home: dir.path });
    expect(human.stdout).toMatch(/^tok_[0-9a-f]{16} {2}alice {2}created \S+\n$/);
    expect((await runZ(["token", "create"], { home: dir.path })).code).toBe(2);
    expect((await runZ(["token", "create", "--tenant", "Bad Name"], { home: dir.path })).code).toBe(2);
  });

  test("--out writes a new 0600 file and never overwrites one", async () => {
    using dir = tempDir();
    const out = join(dir.path, "alice.token");
    const made = await runJson(["token", "create", "--tenant", "alice", "--out", out], { home: dir.path });
    expect(made).toEqual({ id: expect.any(String), tenant: "alice", created: expect.any(String), revoked: null, out });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const token = readFileSync(out, "utf8");
    expect(token).toMatch(/^zdb_[A-Za-z0-9_-]{43}\n$/);

    writeFileSync(join(dir.path, "existing"), "keep me");
    const again = await runZ(["token", "create", "--tenant", "alice", "--out", join(dir.path, "existing"), "--json"], { home: dir.path });
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout).error).toMatchObject({ code: "conflict", field: "out" });
    expect(readFileSync(join(dir.path, "existing"), "utf8")).toBe("keep me");
    const missingDir = await runZ(["token", "create", "--tenant", "alice", "--out", join(dir.path, "no", "such", "file")], { home: dir.path });
    expect(missingDir.code).toBe(2);
    // Neither refusal left a token behind.
    expect((await runJson(["token", "list"], { home: dir.path })).tokens.map((t: { id: string }) => t.id)).toEqual([made.id]);
  });

  test("revoke stops the token at once in a running server", async () => {
    using dir = tempDir();
    const made = await runJson(["token", "create", "--tenant", "alice"], { home: dir.path });
    await using server = await startServer(dir.path);
    const whoami = () => fetch(`${server.url}/v1/whoami`, { headers: { authorization: `Bearer ${made.token}` } }).then((r) => r.status);
    expect(await whoami()).toBe(200);
    const revoked = await runJson(["token", "revoke", made.id], { home: dir.path });
    expect(revoked).toEqual({ id: made.id, tenant: "alice", created: made.created, revoked: expect.any(String) });
    expect(await whoami()).toBe(401);
    const unknown = await runZ(["token", "revoke", "tok_ffffffffffffffff"], { home: dir.path });
    expect(unknown).toEqual({ code: 1, stdout: "", stderr: "zerodb: no token with id tok_ffffffffffffffff\n" });
  });
});
