/**
 * Shared directories (issue 14, item 3), at every door: with a store file,
 * home, data dir, spill root, tokens dir or config.json another user owns or
 * can write, zerodb serve and zerodb mcp exit 1 with the one-line error, the
 * capture hook exits 0 and logs what to fix, and zerodb doctor reports each
 * unsafe path with its fix and exits 1. What is refused and what tightened:
 * shared-dirs.test.ts. The tests run as root: "another user" is uid 65534
 * (nobody), given the path with chown.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runZ, tempDir } from "../helpers.ts";
import { giveAway, isRoot, NOBODY, preCreate } from "./_shared-dirs.ts";

describe.skipIf(!isRoot)("every door refuses the same way", () => {
  /** A home whose store file another user planted (0666, empty). */
  function planted(box: string): string {
    const data = preCreate(box);
    const store = join(data, "zerodb.sqlite");
    writeFileSync(store, "");
    chmodSync(store, 0o666);
    giveAway(store);
    return store;
  }

  test("zerodb serve: exits 1 with the one-line error, never listens", async () => {
    using box = tempDir();
    const store = planted(box.path);
    const r = await runZ(["serve", "--port", "0"], { home: box.path });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringContaining(`zerodb: store file ${store} belongs to another user`)]);
    expect(statSync(store).size).toBe(0);
  });

  test("zerodb mcp: exits 1 before speaking the protocol (stdout stays empty), the error on stderr", async () => {
    using box = tempDir();
    const store = planted(box.path);
    const r = await runZ(["mcp"], { home: box.path, stdin: "" });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
    expect(r.stderr).toContain(`store file ${store} belongs to another user`);
    expect(readdirSync(join(box.path, "zerodb", "data"))).toEqual(["zerodb.sqlite"]);
  });

  const hookInput = (cwd: string) => JSON.stringify({ session_id: "s1", transcript_path: join(cwd, "missing.jsonl"), cwd, hook_event_name: "Stop" });

  test("the capture hook never fails the harness: exit 0, nothing on stdout, one capture.log line saying what to fix", async () => {
    using box = tempDir();
    const store = planted(box.path);
    const r = await runZ(["hook", "claude-code"], { home: box.path, stdin: hookInput(box.path) });
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(statSync(store).size).toBe(0);
    const log = readFileSync(join(box.path, "zerodb", "logs", "capture.log"), "utf8")
      .trim()
      .split("\n");
    expect(log).toEqual([expect.stringContaining(`unsafe_path: store file ${store} belongs to another user`)]);
  });

  test("the capture hook with a home another user owns: exit 0, no log written into that home, the line goes to stderr", async () => {
    using box = tempDir();
    const home = join(box.path, "zerodb");
    mkdirSync(home, { mode: 0o700 });
    giveAway(home);
    const r = await runZ(["hook", "claude-code"], { home: box.path, stdin: hookInput(box.path) });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "" });
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^zerodb hook: Stop session=s1: unsafe_path: home .* belongs to another user/)]);
    expect(readdirSync(home)).toEqual([]);
  });
});

type Check = { name: string; status: "pass" | "warn" | "fail"; detail: string; fix?: string };

/** `zerodb doctor --json`: the exit code and the check named `name`. */
async function doctorCheck(home: string, name: string, args: string[] = []): Promise<{ code: number; check?: Check }> {
  const r = await runZ(["doctor", "--json", ...args], { home });
  expect(r.stderr, "doctor reports, never a stack trace").not.toContain("    at ");
  return { code: r.code, check: (JSON.parse(r.stdout).checks as Check[]).find((c) => c.name === name) };
}

describe.skipIf(!isRoot)("doctor reports each unsafe path with its fix, and exits 1", () => {
  test("a normal home: home and files pass, exit 0", async () => {
    using box = tempDir();
    expect((await runZ(["append", "--session", "s", "x"], { home: box.path })).code).toBe(0);
    const r = await runZ(["doctor", "--json"], { home: box.path });
    const checks = JSON.parse(r.stdout).checks as Check[];
    expect({ code: r.code, home: checks.find((c) => c.name === "home")?.status, files: checks.find((c) => c.name === "files")?.status }).toEqual({
      code: 0,
      home: "pass",
      files: "pass",
    });
  });

  const cases: { name: string; setup(box: string): { check: string; detail: string; fix: string; args?: string[] } }[] = [
    {
      name: "a store file another user owns",
      setup(box) {
        const store = join(preCreate(box), "zerodb.sqlite");
        writeFileSync(store, "");
        chmodSync(store, 0o666);
        giveAway(store);
        return { check: "files", detail: `store file ${store} belongs to another user (uid ${NOBODY}`, fix: `sudo chown 0 ${store}` };
      },
    },
    {
      name: "a data dir of ours that is 0777",
      setup(box) {
        const data = preCreate(box);
        chmodSync(data, 0o777);
        return { check: "home", detail: `data dir ${data} is 0777: other users can write to it`, fix: `chmod 700 ${data}` };
      },
    },
    {
      name: "a symlinked store file",
      setup(box) {
        const store = join(preCreate(box), "zerodb.sqlite");
        writeFileSync(join(box, "elsewhere"), "");
        symlinkSync(join(box, "elsewhere"), store);
        return { check: "files", detail: `store file ${store} is a symbolic link`, fix: `rm ${store}` };
      },
    },
    {
      name: "a spill root another user owns",
      setup(box) {
        preCreate(box);
        const root = join(box, "spills");
        mkdirSync(root, { mode: 0o700 });
        giveAway(root);
        writeFileSync(join(box, "zerodb", "config.json"), JSON.stringify({ spill_root: root }), { mode: 0o600 });
        return { check: "home", detail: `spill root ${root} belongs to another user`, fix: "config spill_root" };
      },
    },
    {
      name: "a tokens dir that is 0777",
      setup(box) {
        const tokens = preCreate(box, "tokens");
        chmodSync(tokens, 0o777);
        return { check: "home", detail: `tokens dir ${tokens} is 0777`, fix: `chmod 700 ${tokens}` };
      },
    },
    {
      name: "a config.json others can write",
      setup(box) {
        preCreate(box);
        const config = join(box, "zerodb", "config.json");
        writeFileSync(config, "{}");
        chmodSync(config, 0o666);
        return { check: "files", detail: `config file ${config} is 0666: other users can write to it`, fix: `chmod 600 ${config}` };
      },
    },
    {
      name: "a data dir whose parent others can write without the sticky bit",
      setup(box) {
        preCreate(box);
        const open = join(box, "open");
        mkdirSync(join(open, "data"), { recursive: true, mode: 0o700 });
        chmodSync(open, 0o777);
        return { check: "home", detail: `the directory ${open} holding data dir`, fix: `chmod go-w ${open}`, args: ["--data-dir", join(open, "data")] };
      },
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      using box = tempDir();
      const want = c.setup(box.path);
      const r = await doctorCheck(box.path, want.check, want.args);
      expect(r.code).toBe(1);
      expect(r.check?.status).toBe("fail");
      expect(r.check?.detail).toContain(want.detail);
      expect(r.check?.fix).toContain(want.fix);
    });
  }
});
