/**
 * Issue 17, item 1: the README's commands run as written on a fresh machine.
 * The install block runs in an empty home with only the downloaded file
 * beside it (the built binary stands in for the release download) and a
 * PATH without ~/.local/bin; the quick start and CLI blocks then run with
 * the `zerodb` it installed.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ZERODB, tempDir } from "../helpers.ts";

const README = readFileSync(resolve(import.meta.dir, "..", "..", "README.md"), "utf8");

/** The ```sh block of the README that contains `marker`. */
function shBlock(marker: string): string {
  const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const found = blocks.filter((b) => b.includes(marker));
  expect(found.length).toBe(1);
  return found[0]!;
}

const BASE_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Runs a README block with bash, stopping at the first failing command. */
function run(script: string, home: string, path: string) {
  const p = Bun.spawnSync(["bash", "-e", "-c", script], { cwd: home, env: { HOME: home, PATH: path, TERM: "dumb" }, stdin: "ignore" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

describe("issue 17 item 1: the README on a fresh machine", () => {
  test("the install block creates ~/.local/bin, puts zerodb on PATH, and its commands run; quick start and CLI blocks run after it", () => {
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
    const quick = run(shBlock("zerodb append --session myproj/notes the deploy key"), home.path, path);
    expect({ code: quick.code, stderr: quick.stderr }).toEqual({ code: 0, stderr: "" });
    expect(quick.stdout).toContain("lives in vault, not in .env");
    const cli = run(shBlock("zerodb import backup.jsonl --data-dir ~/zerodb-restored"), home.path, path);
    expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 0, stderr: "" });
    expect(cli.stdout).toContain("several words need no quotes");
    // Running the install block again (a second try) changes nothing and still works.
    copyFileSync(ZERODB, join(home.path, "zerodb-linux-x64"));
    expect(run(shBlock("mkdir -p ~/.local/bin"), home.path, path).code).toBe(0);
    expect(readFileSync(join(home.path, ".bashrc"), "utf8")).toBe('export PATH="$HOME/.local/bin:$PATH"\n');
  });
});
