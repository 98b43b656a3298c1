/**
 * Shared directories (issue 14, item 3): with the home, the data dir or the
 * spill root in a place other local users reach, another user who
 * pre-creates the directory or an empty 0666 store would read the victim's
 * memory. Everything zerodb keeps must be its user's own and writable by
 * nobody else, or it is refused (a clear `unsafe_path` error naming the path
 * and the fix, nothing written): the store, its data dir and companion
 * files, config.json, the spill root and tokens. A file of its own that is
 * merely readable by others is tightened to 0600 (directories 0700). How
 * each door (serve, mcp, the capture hook) refuses and what doctor reports:
 * shared-dirs-doors.test.ts. The tests run as root: "another user" is uid
 * 65534 (nobody), given the path with chown.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runZ, tempDir } from "../helpers.ts";
import { giveAway, isRoot, NOBODY, preCreate } from "./_shared-dirs.ts";
import { notPrivate } from "./_umask.ts";

const mode = (p: string) => (statSync(p).mode & 0o777).toString(8).padStart(4, "0");

/** The error document of a refused `--json` run, after checking it was one line, exit 1, no stack. */
function refusal(r: { code: number; stdout: string; stderr: string }): { code: string; message: string } {
  expect({ exit: r.code, stderrLines: r.stderr.trim().split("\n").length }).toEqual({ exit: 1, stderrLines: 1 });
  expect(r.stderr, "I10: never a stack trace").not.toContain("    at ");
  return JSON.parse(r.stdout).error;
}

describe.skipIf(!isRoot)("refused: what another user owns or can write (issue 14, item 3)", () => {
  test("a pre-created empty 0666 store file owned by another user: refused, the store is never written or created beside it", async () => {
    using box = tempDir();
    const data = preCreate(box.path);
    const store = join(data, "zerodb.sqlite");
    writeFileSync(store, "");
    chmodSync(store, 0o666);
    giveAway(store);
    const err = refusal(await runZ(["append", "--session", "s", "secret words", "--json"], { home: box.path }));
    expect(err.code).toBe("unsafe_path");
    expect(err.message).toContain(`store file ${store} belongs to another user (uid ${NOBODY}`);
    expect(err.message).toContain("use a place of your own");
    expect(statSync(store).size, "not one byte written to the planted store").toBe(0);
    expect(readdirSync(data), "no WAL, shm or id file created beside it").toEqual(["zerodb.sqlite"]);
    expect(readdirSync(join(box.path, "zerodb")), "the home is not filled in either").toEqual(["data"]);
  });

  test("ZERODB_HOME in a shared sticky directory, pre-created by another user with a 0666 store: refused, nothing written", async () => {
    using box = tempDir();
    const shared = join(box.path, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const home = join(shared, "zerodb");
    mkdirSync(join(home, "data"), { recursive: true });
    writeFileSync(join(home, "data", "zerodb.sqlite"), "");
    for (const p of [home, join(home, "data")]) chmodSync(p, 0o777);
    chmodSync(join(home, "data", "zerodb.sqlite"), 0o666);
    for (const p of [home, join(home, "data"), join(home, "data", "zerodb.sqlite")]) giveAway(p);
    const err = refusal(await runZ(["append", "--session", "s", "secret words", "--json"], { home: box.path, env: { ZERODB_HOME: home } }));
    expect(err.code).toBe("unsafe_path");
    expect(err.message).toMatch(/belongs to another user \(uid 65534/);
    expect(readdirSync(join(home, "data"))).toEqual(["zerodb.sqlite"]);
    expect(readdirSync(home)).toEqual(["data"]);
  });

  test("a data dir owned by another user (--data-dir): refused, no store created inside it", async () => {
    using box = tempDir();
    const data = join(box.path, "theirs");
    mkdirSync(data, { mode: 0o700 });
    giveAway(data);
    const err = refusal(await runZ(["stats", "--data-dir", data, "--json"], { home: box.path }));
    expect(err).toEqual({ code: "unsafe_path", message: expect.stringContaining(`data dir ${data} belongs to another user (uid ${NOBODY}`) });
    expect(readdirSync(data)).toEqual([]);
  });

  test("a data dir of ours that is 0777: refused with the chmod fix, which makes it work", async () => {
    using box = tempDir();
    const data = preCreate(box.path);
    chmodSync(data, 0o777);
    const err = refusal(await runZ(["append", "--session", "s", "x", "--json"], { home: box.path }));
    expect(err.code).toBe("unsafe_path");
    expect(err.message).toContain(`data dir ${data} is 0777: other users can write to it`);
    expect(err.message.endsWith(`chmod 700 ${data}`)).toBe(true);
    expect(readdirSync(data), "nothing created in the refused dir").toEqual([]);
    chmodSync(data, 0o700);
    expect((await runZ(["append", "--session", "s", "x"], { home: box.path })).code).toBe(0);
  });

  test("the store's -wal, -shm and zerodb.id, writable by others or another's: each refused", async () => {
    for (const [name, how] of [
      ["zerodb.sqlite-wal", "owner"],
      ["zerodb.sqlite-shm", "mode"],
      ["zerodb.id", "owner"],
    ] as const) {
      using box = tempDir();
      expect((await runZ(["append", "--session", "s", "x"], { home: box.path })).code).toBe(0);
      const file = join(box.path, "zerodb", "data", name);
      writeFileSync(file, existsSync(file) ? readFileSync(file) : "");
      if (how === "owner") giveAway(file);
      else chmodSync(file, 0o666);
      const err = refusal(await runZ(["read", "--session", "s", "--json"], { home: box.path }));
      expect({ name, code: err.code, names: err.message.includes(file) }).toEqual({ name, code: "unsafe_path", names: true });
    }
  });

  test("a symlink in place of the store file is refused, and its target is untouched", async () => {
    using box = tempDir();
    expect((await runZ(["append", "--session", "s", "x"], { home: box.path })).code).toBe(0);
    const data = join(box.path, "zerodb", "data");
    const elsewhere = join(box.path, "elsewhere.sqlite");
    writeFileSync(elsewhere, readFileSync(join(data, "zerodb.sqlite")));
    const before = readFileSync(elsewhere);
    Bun.spawnSync(["rm", "-f", join(data, "zerodb.sqlite"), join(data, "zerodb.sqlite-wal"), join(data, "zerodb.sqlite-shm")]);
    symlinkSync(elsewhere, join(data, "zerodb.sqlite"));
    const err = refusal(await runZ(["append", "--session", "s", "y", "--json"], { home: box.path }));
    expect(err).toEqual({ code: "unsafe_path", message: expect.stringContaining(`store file ${join(data, "zerodb.sqlite")} is a symbolic link`) });
    expect(Buffer.compare(readFileSync(elsewhere), before)).toBe(0);
    expect(lstatSync(join(data, "zerodb.sqlite")).isSymbolicLink()).toBe(true);
  });

  test("a data dir outside the home whose parent others can write without the sticky bit: refused (they could swap it); a sticky parent is fine", async () => {
    using box = tempDir();
    const open = join(box.path, "open");
    mkdirSync(join(open, "data"), { recursive: true });
    chmodSync(open, 0o777);
    chmodSync(join(open, "data"), 0o700);
    const err = refusal(await runZ(["stats", "--data-dir", join(open, "data"), "--json"], { home: box.path }));
    expect(err.code).toBe("unsafe_path");
    expect(err.message).toContain(`the directory ${open} holding data dir ${join(open, "data")} is 0777 without the sticky bit`);
    expect(err.message).toContain(`chmod go-w ${open}`);
    expect(readdirSync(join(open, "data"))).toEqual([]);
    chmodSync(open, 0o1777);
    expect((await runZ(["stats", "--data-dir", join(open, "data")], { home: box.path })).code).toBe(0);
  });

  test("a config.json others can write (it could point url or data_dir at them): refused with chmod 600", async () => {
    using box = tempDir();
    preCreate(box.path);
    const config = join(box.path, "zerodb", "config.json");
    writeFileSync(config, "{}");
    chmodSync(config, 0o666);
    const err = refusal(await runZ(["stats", "--json"], { home: box.path }));
    expect(err).toEqual({ code: "unsafe_path", message: expect.stringMatching(new RegExp(`config file ${config} is 0666.*: chmod 600 ${config}$`)) });
  });
});

describe.skipIf(!isRoot)("spill root and tokens (sections 2 and 9)", () => {
  test("zerodb mcp refuses to start with a spill root another user owns, or one of ours that is 0777", async () => {
    for (const how of ["owner", "mode"] as const) {
      using box = tempDir();
      const root = join(box.path, "spills");
      mkdirSync(root, { mode: 0o700 });
      if (how === "owner") giveAway(root);
      else chmodSync(root, 0o777);
      preCreate(box.path);
      writeFileSync(join(box.path, "zerodb", "config.json"), JSON.stringify({ spill_root: root }), { mode: 0o600 });
      const r = await runZ(["mcp"], { home: box.path, stdin: "" });
      expect({ how, code: r.code, stdout: r.stdout }).toEqual({ how, code: 1, stdout: "" });
      expect(r.stderr).toContain(`spill root ${root}`);
      expect(r.stderr).toContain(how === "owner" ? "belongs to another user" : `chmod 700 ${root}`);
      expect(readdirSync(root)).toEqual([]);
      expect(readdirSync(join(box.path, "zerodb", "data")), "refused before the store is opened").toEqual([]);
    }
  });

  test("a spill root whose parent others can write without the sticky bit is refused", async () => {
    using box = tempDir();
    const parent = join(box.path, "open");
    mkdirSync(parent, { mode: 0o777 });
    chmodSync(parent, 0o777);
    preCreate(box.path);
    writeFileSync(join(box.path, "zerodb", "config.json"), JSON.stringify({ spill_root: join(parent, "spill") }), { mode: 0o600 });
    const r = await runZ(["mcp"], { home: box.path, stdin: "" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the directory ${parent} holding spill root ${join(parent, "spill")} is 0777 without the sticky bit`);
  });

  test("a tokens dir another user owns: token create refuses, and no token is made", async () => {
    using box = tempDir();
    const tokens = preCreate(box.path, "tokens");
    giveAway(tokens);
    const err = refusal(await runZ(["token", "create", "--tenant", "t", "--json"], { home: box.path }));
    expect(err.code).toBe("unsafe_path");
    expect(err.message).toContain(`tokens dir ${tokens} belongs to another user`);
    expect(existsSync(join(box.path, "zerodb", "data", "zerodb.sqlite")), "no store, so no token").toBe(false);
  });

  test("remote mode: a tenant token file another user planted (their tenant would receive our memory) is refused and never sent", async () => {
    let requests = 0;
    await using server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => {
        requests++;
        return Response.json({ error: { code: "unauthorized", message: "no" } }, { status: 401 });
      },
    });
    for (const how of ["owner", "tokens dir 0777"] as const) {
      using box = tempDir();
      const tokens = preCreate(box.path, "tokens");
      const file = join(tokens, "t");
      writeFileSync(file, "zdb_attackers_token_0000000000000000\n", { mode: 0o600 });
      if (how === "owner") giveAway(file);
      else chmodSync(tokens, 0o777);
      const err = refusal(
        await runZ(["append", "--session", "s", "secret", "--url", `http://127.0.0.1:${server.port}`, "--tenant", "t", "--json"], { home: box.path }),
      );
      expect({ how, code: err.code, names: err.message.includes(how === "owner" ? file : tokens) }).toEqual({ how, code: "unsafe_path", names: true });
    }
    expect(requests, "nothing reached the server").toBe(0);
  });
});

describe("tightened: ours, but readable by others (an older zerodb, a loose umask)", () => {
  test("a 0644 store file, 0644 id and WAL files and a 0755 home and data dir: tightened to 0600/0700, and the store works", async () => {
    using box = tempDir();
    expect((await runZ(["append", "--session", "s", "kept"], { home: box.path })).code).toBe(0);
    const home = join(box.path, "zerodb");
    const data = join(home, "data");
    writeFileSync(join(data, "zerodb.sqlite-wal"), "");
    for (const f of ["zerodb.sqlite", "zerodb.id", "zerodb.sqlite-wal"]) chmodSync(join(data, f), 0o644);
    for (const d of [home, data, join(home, "logs")]) chmodSync(d, 0o755);
    writeFileSync(join(home, "config.json"), "{}");
    chmodSync(join(home, "config.json"), 0o644);
    const r = await runZ(["read", "--session", "s", "--json"], { home: box.path });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(r.stdout).turns.map((t: { content: string }) => t.content)).toEqual(["kept"]);
    // config.json holds no secret: it is left as it is (doctor reports it) rather than changed under the user.
    expect(notPrivate(home), "everything else in the home is private again").toEqual({ "config.json": "0644" });
    expect(mode(join(data, "zerodb.sqlite"))).toBe("0600");
  });

  test("a store copied with 0644 files into a 0755 data dir outside the home is tightened, not refused", async () => {
    using box = tempDir();
    const src = join(box.path, "src-data");
    expect((await runZ(["append", "--session", "s", "copied", "--data-dir", src], { home: box.path })).code).toBe(0);
    const copy = join(box.path, "copy", "data");
    mkdirSync(copy, { recursive: true });
    chmodSync(copy, 0o755);
    for (const f of readdirSync(src)) {
      writeFileSync(join(copy, f), readFileSync(join(src, f)));
      chmodSync(join(copy, f), 0o644);
    }
    const r = await runZ(["read", "--session", "s", "--data-dir", copy, "--json"], { home: box.path });
    expect(r.code).toBe(0);
    expect(notPrivate(copy)).toEqual({});
  });
});
