/**
 * File modes under umask 000 (issue 9; DESIGN.md section 2: home 0700,
 * files 0600; section 9: spill dirs 0700, files 0600; 7.1: a harness config
 * keeps its mode). Every process runs with the most permissive umask, so
 * anything left to the umask would come out readable by other users of the
 * machine, who must never see another user's memory (I5, at the level of
 * the operating system).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { tempDir } from "../helpers.ts";
import { MCP_FILES, writeUserFiles } from "../harness/_fixtures.ts";
import { envOf, mcpUmask0, modes, notPrivate, runUmask0, underUmask0 } from "./_umask.ts";

const mode = (p: string) => (statSync(p).mode & 0o777).toString(8).padStart(4, "0");

describe("file modes under umask 000 (I5, sections 2, 7.1, 9)", () => {
  test("a fresh home: home, data dir, spill, tokens, logs 0700; store file and zerodb.id 0600", async () => {
    using box = tempDir();
    const r = await runUmask0(["append", "--session", "s", "hello"], { home: box.path });
    expect(r.code).toBe(0);
    const home = join(box.path, "zerodb");
    expect(notPrivate(home), "section 2: everything in the home is private").toEqual({});
    expect(modes(home)).toMatchObject({
      ".": { dir: true, mode: "0700" },
      data: { dir: true, mode: "0700" },
      "data/zerodb.sqlite": { dir: false, mode: "0600" },
      "data/zerodb.id": { dir: false, mode: "0600" },
      spill: { mode: "0700" },
      tokens: { mode: "0700" },
      logs: { mode: "0700" },
    });
  });

  test("a data dir outside the home, and objects in it: every directory 0700, every blob 0600", async () => {
    using box = tempDir();
    writeFileSync(join(box.path, "in.bin"), "some bytes");
    const dataDir = join(box.path, "elsewhere", "data");
    const put = await runUmask0(["object", "put", "in.bin", "--data-dir", dataDir, "--json"], { home: box.path });
    expect(put.code).toBe(0);
    const digest = JSON.parse(put.stdout).object as string;
    expect(notPrivate(join(box.path, "elsewhere")), "data dir, object shards and blobs are private").toEqual({});
    const got = await runUmask0(["object", "get", digest, "--out", "out.bin", "--data-dir", dataDir], { home: box.path });
    expect(got.code).toBe(0);
    expect(mode(join(box.path, "out.bin")), "a copied-out object stays private").toBe("0600");
  });

  test("token files and exports are 0600", async () => {
    using box = tempDir();
    expect((await runUmask0(["token", "create", "--tenant", "t", "--out", "token.txt"], { home: box.path })).code).toBe(0);
    expect((await runUmask0(["export", "--out", "export.jsonl"], { home: box.path })).code).toBe(0);
    expect({ token: mode(join(box.path, "token.txt")), export: mode(join(box.path, "export.jsonl")) }).toEqual({ token: "0600", export: "0600" });
  });

  test("while zerodb serve writes, the WAL and shared-memory files are 0600 too", async () => {
    using box = tempDir();
    const token = JSON.parse((await runUmask0(["token", "create", "--tenant", "t", "--json"], { home: box.path })).stdout).token as string;
    const proc = Bun.spawn(underUmask0(["serve", "--port", "0"]), { cwd: box.path, env: envOf(box.path), stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    try {
      const reader = proc.stderr.getReader();
      let seen = "";
      while (!/listening on (\S+)/.test(seen)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`serve ended: ${seen}`);
        seen += new TextDecoder().decode(value);
      }
      const url = /listening on (\S+)/.exec(seen)![1]!;
      const res = await fetch(`${url}/v1/turns`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ session: "s", entries: [{ role: "note", content: "x" }] }),
      });
      expect(res.status).toBe(200);
      const data = join(box.path, "zerodb", "data");
      expect(readdirSync(data).sort()).toEqual(["zerodb.id", "zerodb.sqlite", "zerodb.sqlite-shm", "zerodb.sqlite-wal"]);
      expect(notPrivate(data), "SQLite's WAL and -shm files are private while the server runs").toEqual({});
    } finally {
      proc.kill();
      await proc.exited;
    }
  });

  test("spilled tool results: spill root and session directory 0700, files 0600 (section 9)", async () => {
    using box = tempDir();
    const work = join(box.path, "work");
    mkdirSync(work);
    mkdirSync(join(box.path, "zerodb"));
    const spillRoot = join(box.path, "spills", "root");
    writeFileSync(join(box.path, "zerodb", "config.json"), JSON.stringify({ max_inline_bytes: 1024, spill_root: spillRoot }));
    await using mcp = await mcpUmask0({ home: box.path, cwd: work });
    await mcp.client.callTool({ name: "remember", arguments: { content: "word ".repeat(2000), session: "big" } });
    const r = (await mcp.client.callTool({ name: "recall", arguments: { session: "big" } })) as CallToolResult;
    expect(r._meta?.["zerodb/spill"], "the result was spilled").toBeDefined();
    expect(notPrivate(join(box.path, "spills")), "section 9: spill directories 0700, files 0600").toEqual({});
  });

  test("capture.log and its directory: 0600 and 0700, even in a home the hook creates", async () => {
    using box = tempDir();
    const r = await runUmask0(["hook", "claude-code"], { home: box.path, stdin: "not json" });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "" });
    expect(modes(join(box.path, "zerodb"))).toMatchObject({ ".": { mode: "0700" }, logs: { mode: "0700" }, "logs/capture.log": { mode: "0600" } });
    expect(notPrivate(join(box.path, "zerodb"))).toEqual({});
  });

  test("connect keeps each harness config's own mode, backs up with the same mode, creates new files 0600 (7.1)", async () => {
    using box = tempDir();
    writeUserFiles(box.path);
    chmodSync(join(box.path, MCP_FILES.gemini!), 0o644);
    // Cursor installed, its config not yet written: connect creates it.
    rmSync(join(box.path, MCP_FILES.cursor!));
    const before = Object.fromEntries(
      Object.values(MCP_FILES)
        .filter((f) => f !== MCP_FILES.cursor)
        .map((f) => [f, mode(join(box.path, f))]),
    );
    const r = await runUmask0(["connect", "--capture", "--json"], { home: box.path });
    expect(r.code, r.stderr).toBe(0);
    for (const [file, m] of Object.entries(before)) {
      expect(mode(join(box.path, file)), `7.1: ${file} keeps its mode`).toBe(m);
      expect(mode(join(box.path, `${file}.zerodb-backup`)), `7.1: ${file}'s backup has its mode`).toBe(m);
    }
    expect(mode(join(box.path, MCP_FILES.cursor!)), "7.1: a config connect creates is private").toBe("0600");
    expect(notPrivate(join(box.path, "zerodb")), "section 2: the home connect creates is private").toEqual({});
  });
});
