/**
 * Issue 17: what doctor does on a user's first day. It writes nothing to the
 * user's store (item 5), its fixes never point back at a step that found
 * nothing, it notices a harness installed after connect (item 7), and it
 * warns when Gemini CLI's folder trust disables zerodb (item 8), checked
 * against Gemini CLI itself when it is installed.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { harnessBin } from "../harness/_clis.ts";
import { runJson, runZ, tempDir } from "../helpers.ts";

type Check = { name: string; status: "pass" | "warn" | "fail"; detail: string; fix?: string };
type Report = { ok: boolean; checks: Check[] };

/** No harness command on PATH: only the folders a test makes count as installed. */
const NO_PATH = { PATH: "/nonexistent" };

async function doctor(home: string, cwd = home): Promise<Report> {
  const r = await runZ(["doctor", "--json"], { home, cwd, env: NO_PATH });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as Report;
}

/** Every file of the data dir with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out[join(e.parentPath, e.name)] = Bun.hash(readFileSync(join(e.parentPath, e.name))).toString(16);
  }
  return out;
}

describe("issue 17 item 5: doctor leaves the user's store as it was", () => {
  test("the data dir's bytes, the export and the next LSN are the same after two doctor runs; no scratch dir is left", async () => {
    using home = tempDir();
    const opts = { home: home.path };
    await runJson(["append", "--session", "mine", "first note"], opts);
    const data = join(home.path, "zerodb", "data");
    const files = snapshot(data);
    const exported = (await runZ(["export"], opts)).stdout;
    for (let i = 0; i < 2; i++) {
      const r = await doctor(home.path);
      expect(r.checks.find((c) => c.name === "round trip")).toMatchObject({
        status: "pass",
        detail: expect.stringContaining("scratch store (removed afterwards)"),
      });
      expect(r.checks.find((c) => c.name === "objects")!.status).toBe("pass");
    }
    expect(snapshot(data)).toEqual(files);
    expect((await runZ(["export"], opts)).stdout).toBe(exported);
    expect(exported).not.toContain("doctor");
    expect(readdirSync(join(home.path, "zerodb")).filter((n) => n.includes("doctor"))).toEqual([]);
    const next = await runJson<{ entries: { lsn: number }[] }>(["append", "--session", "mine", "second note"], opts);
    expect(next.entries[0]!.lsn).toBe(2);
  });
});

describe("issue 17 item 7: doctor's harness fixes", () => {
  test("a harness installed after connect is reported with connect --harness as the fix", async () => {
    using home = tempDir();
    mkdirSync(join(home.path, ".cursor"));
    await runJson(["connect"], { home: home.path, env: NO_PATH });
    mkdirSync(join(home.path, ".codeium", "windsurf"), { recursive: true });
    const r = await doctor(home.path);
    expect(r.checks.filter((c) => c.name.startsWith("harness"))).toEqual([
      { name: "harness cursor", status: "pass", detail: expect.stringContaining("Cursor starts") },
      {
        name: "harness windsurf",
        status: "warn",
        detail: "Windsurf is installed but zerodb is not registered with it (installed after the last connect?)",
        fix: "zerodb connect --harness windsurf",
      },
    ]);
  });

  test("installed but never connected: the fix is zerodb connect", async () => {
    using home = tempDir();
    mkdirSync(join(home.path, ".cursor"));
    const r = await doctor(home.path);
    expect(r.checks.find((c) => c.name === "harnesses")).toEqual({
      name: "harnesses",
      status: "warn",
      detail: "no harness has zerodb registered (installed: Cursor)",
      fix: "zerodb connect",
    });
  });
});

describe("issue 17 item 8: Gemini CLI's folder trust", () => {
  /** A home where zerodb is registered with Gemini CLI, and a project folder. */
  async function geminiHome(home: string): Promise<string> {
    mkdirSync(join(home, ".gemini"));
    const project = join(home, "project");
    mkdirSync(project);
    await runJson(["connect"], { home, env: NO_PATH });
    return project;
  }
  const trustOf = (r: Report) => r.checks.find((c) => c.name === "gemini trust");

  test("an untrusted folder warns with the fix; a trusted one (or its parent's rule, or trust turned off) does not", async () => {
    using home = tempDir();
    const project = await geminiHome(home.path);
    const rules = join(home.path, ".gemini", "trustedFolders.json");
    expect(trustOf(await doctor(home.path, project))).toEqual({
      name: "gemini trust",
      status: "warn",
      detail: `Gemini CLI disables zerodb (shows it as Disabled) in ${project}: no rule in ${rules} covers it, so Gemini CLI asks and keeps MCP servers off until it is trusted`,
      fix: `trust the folder when Gemini CLI asks (or run /permissions in it), or add "${project}": "TRUST_FOLDER" to ${rules}`,
    });
    writeFileSync(rules, JSON.stringify({ [project]: "DO_NOT_TRUST" }));
    expect(trustOf(await doctor(home.path, project))?.detail).toContain("DO_NOT_TRUST");
    writeFileSync(rules, JSON.stringify({ [project]: "TRUST_FOLDER" }));
    expect(trustOf(await doctor(home.path, project))).toBeUndefined();
    writeFileSync(rules, JSON.stringify({ [join(project, "sub")]: "TRUST_PARENT" }));
    expect(trustOf(await doctor(home.path, project))).toBeUndefined();
    writeFileSync(rules, "{}");
    const settings = JSON.parse(readFileSync(join(home.path, ".gemini", "settings.json"), "utf8"));
    writeFileSync(join(home.path, ".gemini", "settings.json"), JSON.stringify({ ...settings, security: { folderTrust: { enabled: false } } }));
    expect(trustOf(await doctor(home.path, project))).toBeUndefined();
  });

  test("doctor agrees with `gemini mcp list`: Disabled where it warns, Connected where it does not", async () => {
    const gemini = await harnessBin("gemini");
    if (!gemini) return console.warn("skipping: Gemini CLI is not available");
    using home = tempDir();
    const project = await geminiHome(home.path);
    const list = async () => {
      const p = Bun.spawn([gemini, "mcp", "list"], {
        cwd: project,
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: home.path,
          TMPDIR: home.path,
          GEMINI_API_KEY: "offline",
          ZERODB_HOME: join(home.path, "zerodb"),
        },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return `${out}\n${err}`.split("\n").find((l) => l.includes("zerodb:")) ?? `${out}\n${err}`;
    };
    expect(trustOf(await doctor(home.path, project))?.status).toBe("warn");
    expect(await list()).toEndWith("- Disabled");
    writeFileSync(join(home.path, ".gemini", "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
    expect(trustOf(await doctor(home.path, project))).toBeUndefined();
    expect(await list()).toEndWith("- Connected");
  });
});
