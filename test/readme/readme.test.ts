/**
 * Issue 17, item 1: the README's install block on a fresh machine. It runs in
 * an empty home with only the downloaded file beside it (the built binary
 * stands in for the release download) and a PATH without zerodb or
 * ~/.local/bin, and leaves zerodb on the PATH of the next shell. (Every
 * block, this one included, also runs in blocks.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ZERODB, tempDir } from "../helpers.ts";
import { ROOT, blocksOf } from "./_blocks.ts";

const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The shell block of the README that contains `marker`. */
function shBlock(marker: string): string {
  const found = blocksOf("README.md", README).filter((b) => b.script.includes(marker));
  expect(found.length).toBe(1);
  return found[0]!.script;
}

const BASE_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Runs a README block with bash, stopping at the first failing command. */
function run(script: string, home: string, path: string) {
  const p = Bun.spawnSync(["bash", "-e", "-c", script], { cwd: home, env: { HOME: home, PATH: path, TERM: "dumb" }, stdin: "ignore" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

describe("issue 17 item 1: the README on a fresh machine", () => {
  test("the install block creates ~/.local/bin, puts zerodb on PATH, and its commands run; run again, it changes nothing", () => {
    if (process.platform !== "linux" || process.arch !== "x64") return console.warn("skipping: the README's install block names the linux-x64 file");
    using home = tempDir("zerodb-readme-");
    expect(existsSync(join(home.path, ".local"))).toBe(false);
    copyFileSync(ZERODB, join(home.path, "zerodb-linux-x64"));
    const install = run(shBlock("mkdir -p ~/.local/bin"), home.path, BASE_PATH);
    expect({ code: install.code, stderr: install.stderr }).toEqual({ code: 0, stderr: "" });
    expect(install.stdout).toMatch(/^zerodb \d+\.\d+\.\d+ /);
    expect(install.stdout).toContain("no agent harness found");
    expect(install.stdout).toMatch(/all checks passed/);
    // A new shell reads ~/.bashrc: zerodb is found there without the PATH of the test.
    expect(readFileSync(join(home.path, ".bashrc"), "utf8")).toBe('export PATH="$HOME/.local/bin:$PATH"\n');
    const fresh = Bun.spawnSync(["bash", "-c", "source ~/.bashrc && command -v zerodb"], { cwd: home.path, env: { HOME: home.path, PATH: BASE_PATH } });
    expect(fresh.stdout.toString().trim()).toBe(join(home.path, ".local", "bin", "zerodb"));

    const path = `${join(home.path, ".local", "bin")}:${BASE_PATH}`;
    // Running the install block again (a second try) changes nothing and still works.
    copyFileSync(ZERODB, join(home.path, "zerodb-linux-x64"));
    expect(run(shBlock("mkdir -p ~/.local/bin"), home.path, path).code).toBe(0);
    expect(readFileSync(join(home.path, ".bashrc"), "utf8")).toBe('export PATH="$HOME/.local/bin:$PATH"\n');
  });
});
