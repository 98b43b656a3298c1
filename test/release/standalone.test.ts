/**
 * The binary is self-contained (DESIGN.md section 10): migrations and every
 * module are inside it, so a copy far from the repo runs a full store round
 * trip. Where the test may make a mount namespace (root on Linux), the source
 * tree is also hidden under an empty tmpfs for the binary's whole run, so
 * even an absolute path into the repo would find nothing.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { ZERODB, tempDir } from "../helpers.ts";

const REPO = resolve(import.meta.dir, "..", "..");

/** True when `unshare --mount` can hide the repo (root in a sandbox that allows namespaces). */
function canHideRepo(): boolean {
  if (process.platform !== "linux" || !Bun.which("unshare")) return false;
  const r = Bun.spawnSync(["unshare", "--mount", "sh", "-c", 'mount -t tmpfs none "$0" && test -z "$(ls -A "$0")"', REPO], {
    stdout: "ignore",
    stderr: "ignore",
  });
  return r.exitCode === 0;
}

describe("standalone binary", () => {
  test("a copy outside the repo runs a store round trip with nothing of the source tree", async () => {
    using dir = tempDir("zerodb-standalone-");
    const bin = join(dir.path, "zerodb");
    copyFileSync(ZERODB, bin);
    chmodSync(bin, 0o755);
    const home = join(dir.path, "home");
    const cwd = join(dir.path, "elsewhere");
    mkdirSync(cwd);
    // Relative paths from here reach the repo only through "..": there is no source tree below or beside.
    expect(relative(cwd, REPO).startsWith("..")).toBe(true);
    const hide = canHideRepo();
    if (!hide) console.warn("standalone: cannot make a mount namespace here; running without hiding the repo");

    const run = async (args: string[], stdin?: string) => {
      const argv = hide ? ["unshare", "--mount", "sh", "-c", 'mount -t tmpfs none "$0" && shift && exec "$@"', REPO, "_", bin, ...args] : [bin, ...args];
      const p = Bun.spawn(argv, {
        cwd,
        env: { PATH: "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb") },
        stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: "" });
      return JSON.parse(stdout);
    };

    expect((await run(["version", "--json"])).commit).not.toBe("source");
    expect(await run(["append", "--session", "far/away", "--json"], "standalone round trip quokka\n")).toEqual({ entries: [{ lsn: 1, duplicate: false }] });
    expect((await run(["search", "quokka", "--json"])).hits.map((h: any) => [h.lsn, h.session])).toEqual([[1, "far/away"]]);
    expect(await run(["fact", "set", "far/owner", "ada", "--json"])).toEqual({ lsn: 2, duplicate: false });
    expect(await run(["fact", "get", "far/owner", "--json"])).toEqual({ key: "far/owner", value: "ada", lsn: 2 });
    const tape = join(dir.path, "tape.jsonl");
    await run(["export", "--out", tape, "--json"]);
    expect(readFileSync(tape, "utf8").trim().split("\n").length).toBeGreaterThanOrEqual(2);

    // Import into a second, empty data dir: the migrations ran there from inside the binary too.
    const other = join(dir.path, "other-data");
    await run(["import", tape, "--data-dir", other, "--json"]);
    const read = await run(["read", "--session", "far/away", "--data-dir", other, "--json"]);
    expect(read.turns.map((t: any) => [t.lsn, t.content])).toEqual([[1, "standalone round trip quokka\n"]]);
  });
});
