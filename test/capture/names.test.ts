/** Project and capture session names of the hook's working directory (DESIGN.md 7.2). */
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { tempDir } from "../helpers.ts";
import { claudeLayout, hookInput, readSession, runJson, runZ, sessionNames, writeTranscript } from "./_fixtures.ts";

const sha = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

describe("capture session names", () => {
  test("a working directory whose base name is 255 bytes of multi-byte characters", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const name = "日".repeat(85); // 255 bytes of UTF-8, the longest name a Linux directory can have
    expect(Buffer.byteLength(name)).toBe(255);
    const cwd = join(dir.path, "work", name);
    mkdirSync(cwd, { recursive: true });
    const id = "c0ffee00-0000-4000-8000-000000000004";
    writeTranscript(L.transcript(id), id, cwd, 3, "long name");
    const env = { CLAUDE_CONFIG_DIR: L.configDir };
    for (const event of ["SessionStart", "Stop"]) {
      const r = await runZ(["hook", "claude-code"], { home: L.home, cwd, env, stdin: hookInput(event, { sessionId: id, transcript: L.transcript(id), cwd }) });
      expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
    }
    // 229 bytes of the base name cut on a character boundary (76 characters = 228 bytes), "-", 8 hex of the real path.
    const project = `${"日".repeat(76)}-${sha(realpathSync(cwd)).slice(0, 8)}`;
    const session = `${project}/${sha(id).slice(0, 16)}`;
    expect(Buffer.byteLength(session)).toBeLessThanOrEqual(255);
    expect(await sessionNames(L.home)).toEqual([session]);
    expect((await readSession(L.home, session)).map((t) => t.content)).toEqual(["long name 0 question", "long name 1 answer", "long name 2 question"]);
    // The latest-capture fact key fits 255 bytes too: its project part is shortened, keeping the path hash.
    const facts = await runJson(["fact", "list", "--prefix", "project/"], { home: L.home });
    expect(facts.facts.length).toBe(1);
    const key: string = facts.facts[0].key;
    expect(Buffer.byteLength(key)).toBeLessThanOrEqual(255);
    expect(key).toEndWith(`${project.slice(-9)}/latest-capture`);
    expect(facts.facts[0].value.session).toBe(session);
  });

  test("two directories with the same base name get different project sessions", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const a = join(dir.path, "one", "app");
    const b = join(dir.path, "two", "app");
    mkdirSync(a, { recursive: true });
    mkdirSync(b, { recursive: true });
    const env = { CLAUDE_CONFIG_DIR: L.configDir };
    for (const [cwd, id] of [
      [a, "aaaa0000-0000-4000-8000-00000000000a"],
      [b, "bbbb0000-0000-4000-8000-00000000000b"],
    ] as const) {
      writeTranscript(L.transcript(id), id, cwd, 2, basename(cwd));
      const r = await runZ(["hook", "claude-code"], { home: L.home, cwd, env, stdin: hookInput("Stop", { sessionId: id, transcript: L.transcript(id), cwd }) });
      expect(r.code).toBe(0);
    }
    const names = await sessionNames(L.home);
    expect(names.length).toBe(2);
    const projects = names.map((n) => n.split("/")[0]!);
    expect(new Set(projects).size).toBe(2);
    for (const p of projects) expect(p).toMatch(/^app-[0-9a-f]{8}$/);
    expect(projects.sort()).toEqual([`app-${sha(realpathSync(a)).slice(0, 8)}`, `app-${sha(realpathSync(b)).slice(0, 8)}`].sort());
  });
});
