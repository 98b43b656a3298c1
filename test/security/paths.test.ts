/**
 * Path traversal and symlink tricks wherever zerodb takes a path (issue 9):
 * `object get --out`, `export --out`, `token create --out` (6.3: never
 * overwrite), the MCP object tools' roots (section 8), the spill root
 * (section 9), and --data-dir / --home pointing through symlinks or at
 * files. Each is refused or contained: nothing is written outside where it
 * was asked, nothing existing is overwritten, a refusal writes nothing (I6)
 * and tells nothing about files outside the roots (I10).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { runJson, runZ, tempDir } from "../helpers.ts";
import { startMcp, writeConfig } from "../mcp/_client.ts";
import { lastLsn, tokenCount } from "../fuzz/_check.ts";

/** A sandbox: `out/` where outputs are asked for, `outside/` that nothing may touch, traps in between. */
function sandbox(path: string) {
  const out = join(path, "out");
  const outside = join(path, "outside");
  mkdirSync(out);
  mkdirSync(outside);
  writeFileSync(join(outside, "precious.txt"), "do not touch");
  writeFileSync(join(out, "existing"), "keep me");
  mkdirSync(join(out, "a-dir"));
  symlinkSync(join(outside, "precious.txt"), join(out, "link-to-file"));
  symlinkSync(join(outside, "planted.txt"), join(out, "dangling"));
  return { out, outside };
}

/** What must hold after any refusal: outside untouched, the traps as they were, no temp file left. */
function expectUntouched(box: { out: string; outside: string }, what: string) {
  expect(readdirSync(box.outside).sort(), `nothing created outside (${what})`).toEqual(["precious.txt"]);
  expect(readFileSync(join(box.outside, "precious.txt"), "utf8"), `nothing overwritten through a link (${what})`).toBe("do not touch");
  expect(readFileSync(join(box.out, "existing"), "utf8"), `an existing file is never overwritten (${what})`).toBe("keep me");
  expect(readdirSync(join(box.out, "a-dir")), `nothing written into a directory given as the file (${what})`).toEqual([]);
  expect(readdirSync(box.out).sort(), `no temp file or new file left (${what})`).toEqual(["a-dir", "dangling", "existing", "link-to-file"]);
  expect(lstatSync(join(box.out, "dangling")).isSymbolicLink(), `the dangling link is left as it was (${what})`).toBe(true);
}

/** The --out values that must all be refused. */
const TRAPS = ["out/existing", "out/link-to-file", "out/dangling", "out/a-dir", "out/missing-dir/x"];

describe("paths: refused or contained, never overwriting (I6, 6.3, sections 8, 9)", () => {
  test("object get --out, export --out, token create --out refuse existing files, symlinks, directories and missing directories", async () => {
    using dir = tempDir();
    const box = sandbox(dir.path);
    writeFileSync(join(dir.path, "in.bin"), "object bytes");
    const digest = (await runJson<{ object: string }>(["object", "put", "in.bin"], { home: dir.path })).object;
    const dataDir = join(dir.path, "zerodb", "data");
    const [lsn, tokens] = [lastLsn(dataDir), tokenCount(dataDir)];
    for (const out of TRAPS) {
      for (const argv of [
        ["object", "get", digest, "--out", out],
        ["export", "--out", out],
        ["token", "create", "--tenant", "t", "--out", out],
      ]) {
        const what = argv.join(" ");
        const r = await runZ([...argv, "--json"], { home: dir.path });
        expect(r.code, `refused: ${what}`).not.toBe(0);
        const err = JSON.parse(r.stdout).error;
        expect([err.code, err.field], `I6: conflict or invalid_input naming out (${what})`).toEqual([
          out.includes("missing-dir") ? "invalid_input" : "conflict",
          "out",
        ]);
        expectUntouched(box, what);
      }
    }
    expect({ lsn: lastLsn(dataDir), tokens: tokenCount(dataDir) }, "I6: no refusal wrote a record or left a token").toEqual({ lsn, tokens });
    // And where it was asked, it writes.
    expect((await runZ(["object", "get", digest, "--out", "out/new.bin"], { home: dir.path })).code).toBe(0);
    expect(readFileSync(join(box.out, "new.bin"), "utf8")).toBe("object bytes");
  });

  test("MCP object tools: '..', absolute paths and symlinks out of the roots are refused alike, and say nothing of what is outside (section 8, I10)", async () => {
    using dir = tempDir();
    const { outside } = sandbox(dir.path);
    const work = join(dir.path, "work");
    const extra = join(dir.path, "extra-root");
    mkdirSync(join(work, "sub"), { recursive: true });
    mkdirSync(extra);
    writeFileSync(join(work, "inside.txt"), "inside");
    writeFileSync(join(extra, "in-extra.txt"), "in an object root");
    symlinkSync(outside, join(work, "link-out"));
    symlinkSync(join(outside, "precious.txt"), join(work, "link-file"));
    symlinkSync(join(outside, "planted.bin"), join(work, "dangle"));
    symlinkSync(extra, join(work, "link-in"));
    symlinkSync(join(work, "inside.txt"), join(work, "sub", "link-inside"));
    writeConfig(dir.path, { object_roots: [extra] });
    await using mcp = await startMcp({ home: dir.path, cwd: work });
    const call = async (name: string, args: Record<string, unknown>) => (await mcp.call(name, args)) as CallToolResult;
    const dataDir = join(dir.path, "zerodb", "data");

    const refusedPuts = [
      "../outside/precious.txt",
      join(outside, "precious.txt"),
      "link-out/precious.txt",
      "link-file",
      "sub/../../outside/precious.txt",
      "dangle",
    ];
    const before = lastLsn(dataDir);
    const messages = new Map<string, string>();
    for (const path of refusedPuts) {
      const r = await call("object_put", { path });
      expect(
        { path, isError: r.isError, code: (r.structuredContent as any)?.error?.code, field: (r.structuredContent as any)?.error?.field },
        "section 8: refused",
      ).toEqual({ path, isError: true, code: "invalid_input", field: "path" });
      messages.set(path, (r.structuredContent as any).error.message);
    }
    expect(lastLsn(dataDir), "I6: a refused put writes nothing").toBe(before);
    // Whether the outside file exists must not change the answer (I10: nothing revealed about it).
    for (const [path, missing] of [
      ["../outside/precious.txt", "../outside/nothing.txt"],
      [join(outside, "precious.txt"), join(outside, "nothing.txt")],
    ] as const) {
      const r = await call("object_put", { path: missing });
      expect((r.structuredContent as any).error.message.replace(missing, "P"), `I10: ${path} and ${missing} are refused alike`).toBe(
        messages.get(path)!.replace(path, "P"),
      );
    }
    // Contained: inside the roots, through links that stay inside, it works.
    for (const path of ["inside.txt", "sub/link-inside", "link-in/in-extra.txt", join(extra, "in-extra.txt")]) {
      const r = await call("object_put", { path });
      expect({ path, isError: r.isError ?? false }, "section 8: inside the roots, resolved through symlinks").toEqual({ path, isError: false });
    }
    const digest = ((await call("object_put", { path: "inside.txt" })).structuredContent as { object: string }).object;

    for (const path of [
      "../outside/new.bin",
      join(outside, "new.bin"),
      "link-out/new.bin",
      "dangle",
      "link-file",
      "inside.txt",
      "sub",
      "missing-dir/new.bin",
    ]) {
      const r = await call("object_get", { object: digest, path });
      expect({ path, isError: r.isError, field: (r.structuredContent as any)?.error?.field }, "section 8: object_get refuses to write there").toEqual({
        path,
        isError: true,
        field: "path",
      });
    }
    expect(readdirSync(outside).sort(), "section 8: nothing written outside the roots").toEqual(["precious.txt"]);
    expect(readFileSync(join(outside, "precious.txt"), "utf8")).toBe("do not touch");
    expect(readFileSync(join(work, "inside.txt"), "utf8"), "section 8: an existing file is never overwritten").toBe("inside");
    expect(
      (await call("object_get", { object: digest, path: "link-in/copy.txt" })).isError ?? false,
      "section 8: an object root reached through a link is a root",
    ).toBe(false);
    expect(readFileSync(join(extra, "copy.txt"), "utf8")).toBe("inside");
  });

  test("a spill root that is a file or a dangling symlink: the result stays inline with one warning, nothing is written through the link (section 9)", async () => {
    for (const kind of ["file", "dangling"] as const) {
      using dir = tempDir();
      const work = join(dir.path, "work");
      mkdirSync(work);
      const root = join(dir.path, "spill-root");
      if (kind === "file") writeFileSync(root, "not a directory");
      else symlinkSync(join(dir.path, "nowhere", "spills"), root);
      writeConfig(dir.path, { max_inline_bytes: 1024, spill_root: root });
      await using mcp = await startMcp({ home: dir.path, cwd: work });
      await mcp.call("remember", { content: "word ".repeat(1000), session: "big" });
      const r = (await mcp.call("recall", { session: "big" })) as CallToolResult;
      expect(
        { kind, isError: r.isError ?? false, spilled: r._meta?.["zerodb/spill"] !== undefined },
        "section 9: a failed spill keeps the result inline",
      ).toEqual({ kind, isError: false, spilled: false });
      expect(mcp.stderr().match(/could not spill/g), `section 9: one warning (${kind})`).toHaveLength(1);
      expect(existsSync(join(dir.path, "nowhere")), `section 9: nothing created through a dangling spill root (${kind})`).toBe(false);
    }
  });

  test("spill files land in <root>/session-<sha256>/<12 random>-<safe name>, inside the root (section 9)", async () => {
    using dir = tempDir();
    const work = join(dir.path, "work");
    mkdirSync(work);
    const real = join(dir.path, "real-spills");
    mkdirSync(real);
    symlinkSync(real, join(dir.path, "spill-link"));
    writeConfig(dir.path, { max_inline_bytes: 1024, spill_root: join(dir.path, "spill-link") });
    await using mcp = await startMcp({ home: dir.path, cwd: work });
    await mcp.call("remember", { content: "word ".repeat(1000), session: "../../../etc" });
    await mcp.call("remember", { content: "word ".repeat(1000), session: "big" });
    const r = (await mcp.call("recall", { session: "big" })) as CallToolResult;
    const spill = r._meta?.["zerodb/spill"] as { path: string };
    expect(spill.path.startsWith(`${join(dir.path, "spill-link")}/`), "section 9: inside the configured root").toBe(true);
    expect(spill.path.slice(join(dir.path, "spill-link").length)).toMatch(/^\/session-[0-9a-f]{64}\/[A-Za-z0-9_-]{12}-[A-Za-z0-9._-]{1,64}$/);
    expect(readdirSync(real)).toHaveLength(1);
  });

  test("--data-dir and --home at a file or a dangling symlink are refused; through a symlink to a directory they are contained in it", async () => {
    using dir = tempDir();
    const { outside } = sandbox(dir.path);
    writeFileSync(join(dir.path, "a-file"), "not a directory");
    symlinkSync(join(outside, "store"), join(dir.path, "dangling-data"));
    symlinkSync(join(outside, "home"), join(dir.path, "dangling-home"));
    const cases = [
      ["stats", "--data-dir", "a-file"],
      ["stats", "--data-dir", "dangling-data"],
      ["stats", "--home", "dangling-home", "--config", "none.json"],
      ["append", "--session", "s", "x", "--data-dir", "dangling-data"],
    ];
    for (const argv of cases) {
      const r = await runZ([...argv, "--json"], { home: dir.path });
      expect({ argv, refused: r.code !== 0, lines: r.stderr.trim().split("\n").length }).toEqual({ argv, refused: true, lines: 1 });
      expect(r.stderr, "I10: a clear error, not an internal one").not.toContain("internal error");
      expect(readFileSync(join(dir.path, "a-file"), "utf8")).toBe("not a directory");
      expect(readdirSync(outside), `nothing created through a dangling link (${argv.join(" ")})`).toEqual(["precious.txt"]);
    }
    const real = join(dir.path, "real-data");
    mkdirSync(real);
    symlinkSync(real, join(dir.path, "data-link"));
    expect((await runZ(["append", "--session", "s", "x", "--data-dir", "data-link"], { home: dir.path })).code).toBe(0);
    expect(readdirSync(real).sort(), "the store lands in the directory the link names").toEqual(["zerodb.id", "zerodb.sqlite"]);
  });
});
