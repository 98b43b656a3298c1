/**
 * Issue 33: `zerodb export --format markdown|json` through the built binary.
 * A real `claude -p` session (captured by test/fixtures/claude-session/make.ts,
 * imported with its LSNs and times) against the reviewed expected Markdown;
 * a session holding markup and NULs; one session's turns as JSON; bad flags
 * refused naming them, with nothing written.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { neutralLines } from "../fixtures/claude-session/neutral.ts";
import { runJson, runZ, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "claude-session");
const SESSION = "parser-3018ce73/a20da34e6cf7dbec";

describe("issue 33: zerodb export --format markdown|json", () => {
  test("a captured claude -p session reads as its conversation: the reviewed expected file, to stdout and --out", async () => {
    using home = tempDir();
    const o = { home: home.path };
    expect((await runZ(["import", join(FIXTURE, "export.jsonl")], o)).code).toBe(0);
    const expected = readFileSync(join(FIXTURE, "session.md"), "utf8");
    expect(await runZ(["export", "--format", "markdown", "--session", SESSION], o)).toEqual({ code: 0, stdout: expected, stderr: "" });
    // The redacted key is what the store holds; the key itself is nowhere.
    expect(expected).toContain("[redacted:aws_access_key]");
    expect(expected).not.toContain("AKIA");
    const out = join(home.path, "session.md");
    expect(await runJson(["export", "--format", "markdown", "--session-prefix", "parser-3018ce73/", "--out", out], o)).toEqual({ sessions: 1, turns: 35, out });
    expect(readFileSync(out, "utf8")).toBe(`# Sessions under \`parser-3018ce73/\`\n\n${expected.replace("# Session", "## Session")}`);
    // --out is never overwritten.
    const again = await runZ(["export", "--format", "markdown", "--session", SESSION, "--out", out], o);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("never overwrites");
    // As of a point: the conversation as it stood at the first tool call.
    const early = await runZ(["export", "--format", "markdown", "--session", SESSION, "--as-of", "22"], o);
    expect(early.stdout).toContain("20 turns, LSN 3–22");
    expect(early.stdout).not.toContain("Tool result");
    // Results cut where asked.
    const cut = await runZ(["export", "--format", "markdown", "--session", SESSION, "--result-chars", "5"], o);
    expect(cut.stdout).toContain("```text\n1\tThe\n```\n\n_… 48 more characters, in turn LSN 32 as stored._");
  }, 60_000);

  test("the fixture carries stand-ins for the harness's own texts (system prompt, tool descriptions, reminders), the conversation as captured", () => {
    const lines = readFileSync(join(FIXTURE, "export.jsonl"), "utf8").trimEnd().split("\n");
    expect(neutralLines(lines)).toEqual(lines);
    const turns = lines.map((l) => JSON.parse(l)).filter((r) => r.kind === "turn");
    expect(turns.filter((t) => t.content.includes("(stand-in for the harness's")).length).toBeGreaterThan(0);
    expect(turns.find((t) => t.role === "user").content).toStartWith("Does the parser run <script> tags");
  });

  test("a session holding markup and NULs is escaped: no raw HTML, NUL as \\u0000; --format json gives its turns", async () => {
    using home = tempDir();
    const o = { home: home.path };
    const content = "x <script>alert(1)</script> \u0000 y\n```\n<b>open fence</b>";
    const appended = await runJson(["append", "--session", "m", "--role", "user"], { ...o, stdin: content });
    const lsn = appended.entries[0].lsn;
    const md = await runZ(["export", "--format", "markdown", "--session", "m"], o);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain(`### User · `);
    expect(md.stdout).toContain("x &lt;script&gt;alert(1)&lt;/script&gt; \\u0000 y\n```\n<b>open fence</b>\n```\n");
    expect(md.stdout).not.toContain("\u0000");
    const json = await runZ(["export", "--format", "json", "--session", "m"], o);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([{ lsn, session: "m", role: "user", content, meta: {}, ts: expect.any(String) }]);
  }, 60_000);

  test("bad flags are refused naming them, nothing written", async () => {
    using home = tempDir();
    const o = { home: home.path };
    await runZ(["append", "--session", "s", "hello"], o);
    const out = join(home.path, "x.md");
    for (const [args, named] of [
      [["export", "--format", "pdf"], "format"],
      [["export", "--format", "json"], "session"],
      [["export", "--format", "json", "--session-prefix", "s"], "session"],
      [["export", "--format", "markdown", "--session", "s", "--session-prefix", "s"], "session"],
      [["export", "--format", "markdown", "--session", "s", "--as-of", "yesterday", "--out", out], "as_of"],
      [["export", "--format", "markdown", "--session", "s", "--result-chars", "-1"], "result-chars"],
      [["export", "--format", "markdown", "--session", "nope"], "session"],
      [["export", "--session", "s"], "session"],
      [["export", "--format", "markdown", "--after", "3"], "after"],
    ] as const) {
      const r = await runZ([...args], o);
      expect({ args, code: r.code === 0 ? 0 : "failed", stdout: r.stdout, lines: r.stderr.trim().split("\n").length }).toEqual({
        args,
        code: "failed",
        stdout: "",
        lines: 1,
      });
      expect(r.stderr).toContain(named);
    }
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});
