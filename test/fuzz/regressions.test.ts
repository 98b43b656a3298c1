/**
 * Regressions for the bugs the door fuzz found (issue 9), one test each, so
 * none can come back even when a fuzz run does not happen to generate it.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/http/app.ts";
import { JSON_MAX_DEPTH } from "../../src/limits.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { startMcp } from "../mcp/_client.ts";
import { runJson, runZ, tempDir } from "../helpers.ts";
import { lastLsn, tokenCount } from "./_check.ts";
import { deepJsonText } from "./arbitraries.ts";

const nested = (depth: number) => JSON.parse(deepJsonText(depth, "object"));

describe("regressions found by the door fuzz", () => {
  test(`I6: JSON nested past ${JSON_MAX_DEPTH} levels is invalid_input naming the field (a 200,000-deep fact value was a 500 after 14 s; a 2,500-deep meta broke stats for good)`, async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    // The boundary: the limit passes, one more level fails (DESIGN.md section 3 style).
    await m.factSet({ key: "at-limit", value: nested(JSON_MAX_DEPTH) });
    await m.append({ session: "s", entries: [{ role: "note", content: "x", meta: nested(JSON_MAX_DEPTH) as Record<string, unknown> }] });
    const over = await m.factSet({ key: "over", value: nested(JSON_MAX_DEPTH + 1) }).catch((e) => e);
    expect({ code: over.code, field: over.field }).toEqual({ code: "invalid_input", field: "value" });
    const meta = await m.append({ session: "s", entries: [{ role: "note", content: "x", meta: nested(JSON_MAX_DEPTH + 1) }] }).catch((e) => e);
    expect({ code: meta.code, field: meta.field }).toEqual({ code: "invalid_input", field: "entries.0.meta" });
    const far = await m.factSet({ key: "far", value: JSON.parse(deepJsonText(200_000, "array")) }).catch((e) => e);
    expect({ code: far.code, field: far.field }).toEqual({ code: "invalid_input", field: "value" });
    // Everything accepted stays readable: stats reads meta with SQLite's JSON functions (depth limit 1000).
    expect((await m.stats()).turns.count).toBe(1);
    expect((await m.factGet({ key: "at-limit" })).value).toEqual(nested(JSON_MAX_DEPTH));

    // Over HTTP the same body is a 400 naming the field, never a 500.
    const app = createApp({ store });
    const token = (await store.tokens.create({ tenant: "t" })).token;
    const res = await app.request("/v1/facts/deep", {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: `{"value":${deepJsonText(200_000, "object")}}`,
    });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 400,
      body: { error: { code: "invalid_input", message: expect.stringContaining("nests deeper"), field: "value" } },
    });
    store.close();
  });

  test("I6: a query parameter with no name (GET /v1/facts?=0, ?&=%) is invalid_input naming `query`, not an empty field", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const token = (await store.tokens.create({ tenant: "t" })).token;
    const app = createApp({ store });
    for (const path of ["/v1/facts?=0", "/v1/sessions?&=%", "/v1/whoami?=", "/v1/search?q=a&="]) {
      const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
      expect({ path, status: res.status, body: await res.json() }).toEqual({
        path,
        status: 400,
        body: { error: { code: "invalid_input", message: "query: a parameter has no name", field: "query" } },
      });
    }
    store.close();
  });

  test("I6: a missing required flag or argument and an extra argument name their field (citty's messages named none)", async () => {
    using home = tempDir();
    const cases: [string[], string][] = [
      [["append", "--json"], "session"],
      [["fact", "get", "--json"], "key"],
      [["search", "--json"], "query"],
      [["stats", "extra", "--json"], "arguments"],
      // The first --fact has no value: a flag is never taken as one (the parser does not take it either).
      [["forget", "--fact", "--fact", "p/a", "--json"], "fact"],
      [["fact", "set", "--json", "--idem-key", "--no-json", "seed", "null"], "idem-key"],
    ];
    for (const [argv, field] of cases) {
      const r = await runZ(argv, { home: home.path });
      expect({ argv, code: r.code, field: JSON.parse(r.stdout).error.field, lines: r.stderr.trim().split("\n").length }).toEqual({
        argv,
        code: 2,
        field,
        lines: 1,
      });
    }
  });

  test("I6: bad input on the CLI is refused before the home, data dir or store is created", async () => {
    using box = tempDir();
    const home = join(box.path, "home");
    mkdirSync(home);
    writeFileSync(join(box.path, "file.txt"), "x");
    const cases: string[][] = [
      ["read", "--session", "..", "--data-dir", "fresh"],
      ["fact", "set", "a//b", "1", "--home", "fresh-home"],
      ["link", "add", "javascript:x", "--data-dir", "fresh"],
      ["append", "--session", "s", "--meta", "[]", "x", "--data-dir", "fresh"],
      ["sessions", "--limit", "0", "--data-dir", "fresh"],
      ["stats", "--tenant", "Not A Tenant", "--data-dir", "fresh"],
      ["token", "revoke", "nope", "--data-dir", "fresh"],
      ["token", "create", "--tenant", "/bad", "--data-dir", "fresh"],
      ["capture", "status", "--tenant", "/bad", "--data-dir", "fresh"],
      ["export", "--tenant", "/bad", "--data-dir", "fresh"],
      ["export", "--out", "missing-dir/x", "--data-dir", "fresh"],
      ["import", ".", "--data-dir", "fresh"],
      ["object", "get", "sha256:nope", "--out", "x.bin", "--data-dir", "fresh"],
      // A query with no word was refused by the engine, after the store was opened.
      ["search", "😀. ...", "--data-dir", "fresh"],
    ];
    for (const argv of cases) {
      const r = await runZ(argv, { home, cwd: box.path, env: { ZERODB_HOME: join(box.path, "zh") } });
      expect({ argv, code: r.code, created: readdirSync(box.path).sort() }).toEqual({ argv, code: 2, created: ["file.txt", "home"] });
      expect(r.stderr).not.toContain("internal error");
    }
  });

  test("I10: a file where the home or a data dir should be is a clear error naming it, not an internal error", async () => {
    using box = tempDir();
    writeFileSync(join(box.path, "file.txt"), "x");
    // --config elsewhere, so the home is first met when it is created.
    const asHome = await runZ(["fact", "get", "k", "--home", "file.txt", "--config", "missing.json", "--json"], { home: box.path });
    expect({ code: asHome.code, error: JSON.parse(asHome.stdout).error }).toEqual({
      code: 2,
      error: { code: "invalid_input", message: expect.stringContaining("is not a directory"), field: "home" },
    });
    const asData = await runZ(["stats", "--data-dir", "file.txt", "--json"], { home: box.path });
    expect(asData.code).not.toBe(0);
    expect(asData.stderr).not.toContain("internal error");
  });

  test("7.2: a transcript line nested too deep to render is kept verbatim, and the lines after it are captured (it stopped capture for good with an internal RangeError)", async () => {
    using box = tempDir();
    const work = join(box.path, "work");
    mkdirSync(work);
    const transcript = join(box.path, "t.jsonl");
    const msg = (uuid: string, content: string) => JSON.stringify({ type: "user", uuid, parentUuid: null, message: { role: "user", content } });
    writeFileSync(
      transcript,
      [msg("u1", "before the deep line"), `{"type":"weird","x":${deepJsonText(100_000, "object")}}`, msg("u2", "after the deep line"), ""].join("\n"),
    );
    const event = JSON.stringify({ session_id: "s1", transcript_path: transcript, cwd: work, hook_event_name: "Stop" });
    const r = await runZ(["hook", "claude-code"], { home: box.path, stdin: event });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(existsSync(join(box.path, "zerodb", "logs", "capture.log"))).toBe(false);
    const hits = await runJson<{ hits: unknown[] }>(["search", '"after the deep line"'], { home: box.path });
    expect(hits.hits).toHaveLength(1);
  });

  test("7.2: hook stdin over 1 MiB is logged as too_large, not as an internal error", async () => {
    using box = tempDir();
    const r = await runZ(["hook", "claude-code"], { home: box.path, stdin: new Uint8Array(2 * 1024 * 1024).fill(0x7b) });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
    const log = readFileSync(join(box.path, "zerodb", "logs", "capture.log"), "utf8");
    expect(log).toMatch(/^\S+ hook: too_large: stdin: the hook input is over 1048576 bytes\n$/);
  });

  test("7.2: a transcript_path naming a directory is a warning, not an internal error (Linux opens a directory and fails at the first read)", async () => {
    using box = tempDir();
    const event = JSON.stringify({ session_id: "s", transcript_path: box.path, cwd: box.path, hook_event_name: "Stop" });
    const r = await runZ(["hook", "claude-code"], { home: box.path, stdin: event });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(join(box.path, "zerodb", "logs", "capture.log"), "utf8")).toEndWith(`Stop session=s: cannot read ${box.path} (EISDIR)\n`);
  });

  test("I6: a file name over 255 bytes is invalid_input naming the field, and a long valid one is written (the temp name beside it overflowed)", async () => {
    using box = tempDir();
    writeFileSync(join(box.path, "in.bin"), "bytes");
    const digest = (await runJson<{ object: string }>(["object", "put", "in.bin"], { home: box.path })).object;
    const tooLong = "é".repeat(128);
    const long = "é".repeat(120);
    for (const argv of [
      ["object", "get", digest, "--out"],
      ["export", "--out"],
      ["token", "create", "--tenant", "t", "--out"],
    ]) {
      const r = await runZ([...argv, tooLong, "--json"], { home: box.path });
      expect({ argv, code: r.code, error: JSON.parse(r.stdout).error }).toEqual({
        argv,
        code: 2,
        error: { code: "invalid_input", message: expect.stringContaining("over the 255"), field: "out" },
      });
      const ok = await runZ([...argv, `${long}-${argv[0]}`], { home: box.path });
      expect({ argv, code: ok.code, stderr: ok.stderr.includes("internal") }).toEqual({ argv, code: 0, stderr: false });
    }
    expect(tokenCount(join(box.path, "zerodb", "data")), "the refused token create left no token").toBe(1);
    const work = join(box.path, "work");
    mkdirSync(work);
    await using mcp = await startMcp({ home: box.path, cwd: work });
    writeFileSync(join(work, "in.bin"), "bytes");
    await mcp.call("object_put", { path: "in.bin" });
    const r = await mcp.call("object_get", { object: digest, path: tooLong });
    expect(r.structuredContent).toEqual({ error: { code: "invalid_input", message: expect.stringContaining("over the 255"), field: "path" } });
    expect((await mcp.call("object_get", { object: digest, path: long })).isError ?? false).toBe(false);
  });

  test("I10: import of a character device (/dev/null) imports nothing instead of an internal error (Bun.file().stream() fails on it)", async () => {
    using box = tempDir();
    const r = await runZ(["import", "/dev/null", "--json"], { home: box.path });
    expect({ code: r.code, out: JSON.parse(r.stdout) }).toEqual({ code: 0, out: { records: 0, last_lsn: 0 } });
  });

  test("I6: token create --out onto a dangling symlink is refused before a token exists (it left a revoked token behind)", async () => {
    using box = tempDir();
    await runJson(["stats"], { home: box.path });
    const dataDir = join(box.path, "zerodb", "data");
    symlinkSync(join(box.path, "nowhere", "target"), join(box.path, "dangling"));
    const r = await runZ(["token", "create", "--tenant", "t", "--out", "dangling", "--json"], { home: box.path });
    expect({ code: r.code, error: JSON.parse(r.stdout).error.code }).toEqual({ code: 1, error: "conflict" });
    expect(tokenCount(dataDir)).toBe(0);
    expect(existsSync(join(box.path, "nowhere"))).toBe(false);
    expect(lastLsn(dataDir)).toBe(0);
  });
});
