/**
 * The binary reads nothing from its working directory but what it is told
 * to: a compiled Bun binary loads `.env` and `bunfig.toml` from there by
 * default, and the hook and `zerodb mcp` run in the user's project, whose
 * `.env` would move the home or the data dir and whose bunfig.toml
 * `preload` would run its code inside zerodb (scripts/build.ts).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ZERODB, tempDir } from "../helpers.ts";

describe("the working directory's .env and bunfig.toml", () => {
  test("are not read: the store goes to the home the environment names", async () => {
    using box = tempDir();
    const project = join(box.path, "project");
    mkdirSync(project);
    const elsewhere = join(box.path, "elsewhere");
    writeFileSync(join(project, ".env"), `ZERODB_HOME=${elsewhere}\nZERODB_DATA_DIR=${join(elsewhere, "data")}\nZERODB_TENANT=planted\n`);
    writeFileSync(join(project, "bunfig.toml"), `preload = ["./planted.ts"]\n`);
    writeFileSync(join(project, "planted.ts"), `console.log("planted code ran");\n`);
    const home = join(box.path, "home");
    const proc = Bun.spawn([ZERODB, "append", "--session", "s", "--json", "kept in the real home"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: box.path, ZERODB_HOME: home },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).not.toContain("planted");
    expect(JSON.parse(stdout)).toEqual({ entries: [{ lsn: 1, duplicate: false }] });
    expect(existsSync(join(home, "data", "zerodb.sqlite"))).toBe(true);
    expect(existsSync(elsewhere)).toBe(false);
  });
});
