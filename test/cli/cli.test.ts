/** The CLI of DESIGN.md 6.3, driving the built binary. */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runJson, runZ, tempDir } from "../helpers.ts";

/** Asserts a failed run: the exit code, one stderr line naming `field`, no stack trace. */
function expectOneLineError(r: { code: number; stdout: string; stderr: string }, field: string, codes = [1, 2]) {
  expect(codes).toContain(r.code);
  const lines = r.stderr.trim().split("\n");
  expect(lines.length).toBe(1);
  expect(lines[0]).toStartWith("zerodb: ");
  expect(lines[0]).toContain(field);
  expect(r.stderr).not.toMatch(/\n\s+at |\.ts:\d+|node_modules|SQLITE/);
}

describe("cli", () => {
  test("search says when its hits share only common words with the question", async () => {
    using home = tempDir();
    const o = { home: home.path };
    await runJson(["append", "--session", "p", "The DST shift made the nightly cron fire twice"], o);
    const fallback = await runZ(["search", "what", "broke", "when", "the", "clock", "changed"], o);
    expect(fallback.stdout.split("\n")[0]).toBe("(no hit holds broke, clock or changed: these share only common words with the query)");
    expect((await runZ(["search", "why", "did", "the", "cron", "fire", "twice"], o)).stdout).not.toContain("no hit holds");
    // The JSON result is the store's, unchanged.
    expect(Object.keys(await runJson(["search", "what", "broke"], o))).toEqual(["hits"]);
  });

  test("append, read, sessions, search, facts, forget, stats: --json prints exactly the result", async () => {
    using home = tempDir();
    const o = { home: home.path };
    expect(await runJson(["append", "--session", "p/a", "--role", "user", "--meta", '{"k":1}', "hello cli world"], o)).toEqual({
      entries: [{ lsn: 1, duplicate: false }],
    });
    expect(await runJson(["append", "--session", "p/a", "--idem-key", "x"], { ...o, stdin: "from stdin\n" })).toEqual({
      entries: [{ lsn: 2, duplicate: false }],
    });
    expect(await runJson(["append", "--session", "p/a", "--idem-key", "x"], { ...o, stdin: "from stdin\n" })).toEqual({
      entries: [{ lsn: 2, duplicate: true }],
    });
    const read = await runJson(["read", "--session", "p/a"], o);
    expect(read.turns.map((t: any) => [t.lsn, t.role, t.content, t.meta])).toEqual([
      [1, "user", "hello cli world", { k: 1 }],
      [2, "note", "from stdin\n", {}],
    ]);
    expect(read.next).toBeNull();
    expect((await runJson(["read", "--session", "p/a", "--after", "1", "--limit", "1"], o)).turns.map((t: any) => t.lsn)).toEqual([2]);
    expect(await runJson(["sessions", "--prefix", "p/"], o)).toEqual({
      sessions: [{ name: "p/a", turns: 2, first_lsn: 1, last_lsn: 2, bytes: 26 }],
      next: null,
    });
    const hits = await runJson(["search", "cli", "--role", "user"], o);
    expect(hits.hits.map((h: any) => [h.lsn, h.session, h.snippet])).toEqual([[1, "p/a", "hello [cli] world"]]);
    expect(await runJson(["fact", "set", "owner", "alice"], o)).toEqual({ lsn: 3, duplicate: false });
    expect(await runJson(["fact", "set", "conf", '{"n": 2}'], o)).toEqual({ lsn: 4, duplicate: false });
    expect(await runJson(["fact", "get", "owner"], o)).toEqual({ key: "owner", value: "alice", lsn: 3 });
    expect((await runJson(["fact", "list"], o)).facts).toEqual([
      { key: "conf", value: { n: 2 }, lsn: 4 },
      { key: "owner", value: "alice", lsn: 3 },
    ]);
    expect(await runJson(["forget", "--session", "p/a", "--dry-run"], o)).toEqual({ lsn: null, hidden: 2, dry_run: true });
    expect(await runJson(["forget", "--session", "p/a"], o)).toEqual({ lsn: 5, hidden: 2, dry_run: false });
    const stats = await runJson(["stats"], o);
    expect([stats.turns.count, stats.facts.count, stats.forgets, stats.forgotten, stats.last_lsn]).toEqual([0, 2, 1, 2, 5]);
    // Human output goes to stdout too, and is not JSON.
    const human = await runZ(["fact", "get", "owner"], o);
    expect(human).toEqual({ code: 0, stdout: "alice\n", stderr: "" });
  });

  test("the home is created 0700 and the store 0600", async () => {
    using home = tempDir();
    await runJson(["append", "--session", "s", "x"], { home: home.path });
    const { statSync } = await import("node:fs");
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(join(home.path, "zerodb"))).toBe(0o700);
    expect(mode(join(home.path, "zerodb", "data"))).toBe(0o700);
    expect(mode(join(home.path, "zerodb", "data", "zerodb.sqlite"))).toBe(0o600);
  });

  test("export then import into an empty store through the CLI gives the same records", async () => {
    using home = tempDir();
    using other = tempDir();
    const o = { home: home.path };
    await runJson(["append", "--session", "a", "one"], o);
    await runJson(["fact", "set", "k", "[1,2]"], o);
    await runJson(["append", "--session", "b", "two"], o);
    await runJson(["forget", "--session", "b"], o);
    const file = join(home.path, "backup.jsonl");
    expect(await runJson(["export", "--out", file], o)).toEqual({ records: 4, out: file });
    // Never overwrites.
    const again = await runZ(["export", "--out", file], o);
    expectOneLineError(again, "exists");
    const stdoutExport = await runZ(["export"], o);
    expect(stdoutExport.stdout).toBe(readFileSync(file, "utf8"));
    expect(await runJson(["import", file], { home: other.path })).toEqual({ records: 4, last_lsn: 4 });
    expect((await runZ(["export"], { home: other.path })).stdout).toBe(readFileSync(file, "utf8"));
    // Into a store that has records (issue 20): its own records again are skipped, nothing is written twice...
    expect(await runJson(["import", file], { home: other.path })).toEqual({ records: 4, last_lsn: 4, skipped: 4, purged: 0 });
    expect((await runZ(["export"], { home: other.path })).stdout).toBe(readFileSync(file, "utf8"));
    // ...and another store's records are refused.
    using third = tempDir();
    await runJson(["append", "--session", "c", "three"], { home: third.path });
    expectOneLineError(await runZ(["import", file], { home: third.path }), "does not continue this store");
  });

  test("bad input on every command: one line naming the field, exit 1 or 2, nothing written", async () => {
    using home = tempDir();
    const o = { home: home.path };
    await runJson(["append", "--session", "base", "seed"], o);
    const cases: [string[], string, string?][] = [
      [["append", "--session", "a/../b", "x"], "session"],
      [["append", "--session", "a\u0001b", "x"], "session"],
      [["append", "--session", "é".repeat(128), "x"], "session"],
      [["append", "x"], "--session"],
      [["append", "--session", "s", "--role", "robot", "x"], "role"],
      [["append", "--session", "s", "--meta", "{not json", "x"], "meta"],
      [["append", "--session", "s", "--meta", "[1]", "x"], "meta"],
      [["append", "--session", "s", "--bogus", "1", "x"], "--bogus"],
      [["read", "--session", "s", "x"], "too many arguments"],
      [["append", "--session", "s", "--idem-key", "", "x"], "idem_key"],
      [["read", "--session", "s", "--limit", "1001"], "limit"],
      [["read", "--session", "s", "--limit", "-1"], "limit"],
      [["read", "--session", "s", "--after", "abc"], "after"],
      [["read"], "--session"],
      [["sessions", "--limit", "0"], "limit"],
      [["sessions", "--prefix", "a//"], "prefix"],
      [["search"], "QUERY"],
      [["search", "!!!"], "query"],
      [["search", "x", "--role", "robot"], "role"],
      [["fact", "set", "a/../b", "1"], "key"],
      [["fact", "set", "k"], "VALUE"],
      [["fact", "get", "missing"], "missing"],
      [["fact", "list", "--limit", "x"], "limit"],
      [["forget"], "selector"],
      [["forget", "--session", "a", "--fact", "b"], "selector"],
      [["forget", "--turn", "x"], "turn"],
      [["forget", "--before", "yesterday"], "before"],
      [["stats", "extra"], "too many arguments"],
      [["import", join(home.path, "nope.jsonl")], "nope.jsonl"],
      [["nosuchcommand"], "unknown command"],
    ];
    for (const [args, field] of cases) {
      const r = await runZ(args, o);
      try {
        expectOneLineError(r, field);
      } catch (err) {
        throw new Error(`zerodb ${args.join(" ")}: ${(err as Error).message}\nstderr: ${r.stderr}`);
      }
    }
    // Invalid UTF-8 on stdin.
    expectOneLineError(await runZ(["append", "--session", "s"], { ...o, stdin: new Uint8Array([0x68, 0xff, 0xfe, 0x69]) }), "content");
    // A bad import line.
    const bad = join(home.path, "bad.jsonl");
    writeFileSync(bad, '{"lsn":1,"tenant":"local","ts":"2026-01-01T00:00:00Z","kind":"turn","session":"s","role":"note","content":"x","meta":{}}\n{broken\n');
    using fresh = tempDir();
    expectOneLineError(await runZ(["import", bad], { home: fresh.path }), "line 2");
    expect((await runJson(["stats"], { home: fresh.path })).last_lsn).toBe(0);
    // Nothing was written by any of the failures above.
    expect((await runJson(["stats"], o)).last_lsn).toBe(1);
  });

  test("--json errors are one JSON document on stdout; usage errors exit 2", async () => {
    using home = tempDir();
    const r = await runZ(["read", "--session", "x/../y", "--json"], { home: home.path });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: "invalid_input", message: "session: must not contain a '..' segment", field: "session" } });
    const nf = await runZ(["fact", "get", "nope", "--json"], { home: home.path });
    expect(nf.code).toBe(1);
    expect(JSON.parse(nf.stdout).error.code).toBe("not_found");
  });

  test("version prints the version and the commit it was built from", async () => {
    using home = tempDir();
    const v = await runJson(["version"], { home: home.path });
    expect(v.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(v.commit).toMatch(/^([0-9a-f]{12}(-dirty)?|unknown)$/);
    expect(existsSync(join(home.path, "zerodb"))).toBe(false);
  });

  test("a newer store is refused with a clear error", async () => {
    using home = tempDir();
    await runJson(["append", "--session", "s", "x"], { home: home.path });
    const { Database } = await import("bun:sqlite");
    const db = new Database(join(home.path, "zerodb", "data", "zerodb.sqlite"));
    db.run("PRAGMA user_version = 77");
    db.close();
    expectOneLineError(await runZ(["read", "--session", "s"], { home: home.path }), "newer zerodb");
  });
});
