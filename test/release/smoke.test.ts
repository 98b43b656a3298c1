/**
 * The smoke script stops at the first broken step and names it: each case
 * wraps the real binary in a shell script that breaks one command on purpose
 * and passes every other command through unchanged.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { STEPS } from "../../scripts/smoke/steps.ts";
import { ZERODB, tempDir } from "../helpers.ts";

const SMOKE = resolve(import.meta.dir, "..", "..", "scripts", "smoke.ts");

/** Runs the smoke script on `binary`. */
async function smoke(binary: string): Promise<{ code: number; lines: string[]; stderr: string }> {
  const p = Bun.spawn([process.execPath, SMOKE, binary], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, lines: stdout.trimEnd().split("\n"), stderr };
}

/** A wrapper binary: runs `action` (shell) when the first argument is `command`, else execs the real binary. */
function wrapper(dir: string, command: string, action: string): string {
  const file = join(dir, "zerodb-broken");
  writeFileSync(file, `#!/bin/sh\nif [ "$1" = "${command}" ]; then\n${action}\nfi\nexec "${ZERODB}" "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

/** The lines a run that fails at `step` prints before its FAIL line. */
function okBefore(step: string): string[] {
  const at = STEPS.findIndex((s) => s.name === step);
  expect(at).toBeGreaterThanOrEqual(0);
  return ["ok sandbox", ...STEPS.slice(0, at).map((s) => `ok ${s.name}`)];
}

const BREAKS: { step: string; command: string; action: string; why: RegExp }[] = [
  { step: "version", command: "version", action: 'echo "broken on purpose" >&2; exit 3', why: /exited 3: broken on purpose/ },
  {
    step: "doctor",
    command: "doctor",
    action: `echo '{"ok":false,"checks":[{"name":"store","status":"fail","detail":"broken on purpose","fix":"none"}]}'; exit 1`,
    why: /^FAIL doctor: store: broken on purpose \(fix: none\)$/,
  },
  { step: "store", command: "append", action: 'echo "broken on purpose" >&2; exit 1', why: /zerodb append .* exited 1: broken on purpose/ },
  // The protocol owns stdout: one stray line before the answer breaks every MCP client.
  {
    step: "mcp",
    command: "mcp",
    action: `echo "hello from a stray log line"; exec "${ZERODB}" "$@"`,
    why: /stdout line is not JSON-RPC: "hello from a stray log line"/,
  },
  {
    step: "mcp",
    command: "mcp",
    action: 'echo "mcp broken on purpose" >&2; exit 1',
    why: /stream ended before initialize answer \(stderr: mcp broken on purpose\)/,
  },
  {
    step: "serve",
    command: "serve",
    action: 'echo "serve broken on purpose" >&2; exit 1',
    why: /stream ended before a 'listening on' line from zerodb serve \(stderr: serve broken on purpose\)/,
  },
  // A hook always exits 0 (it must never break Claude Code): the step has to notice that nothing was captured.
  { step: "hook", command: "hook", action: "cat >/dev/null; exit 0", why: /search hookword\w+ found 0 captured lines, not 2/ },
  // A connect that ignores --dry-run writes the user's harness configs: the step must refuse it.
  { step: "connect", command: "connect", action: `exec "${ZERODB}" connect --json`, why: /connect --dry-run did not report a dry run/ },
];

describe("smoke script", () => {
  for (const b of BREAKS) {
    test(`names the failing step: ${b.step} (${b.command} broken: ${b.action.split(";")[0]})`, async () => {
      using dir = tempDir("zerodb-smoke-test-");
      const r = await smoke(wrapper(dir.path, b.command, b.action));
      expect(r.code).toBe(1);
      const before = okBefore(b.step);
      expect(r.lines.slice(0, before.length)).toEqual(before);
      // The FAIL line is the last line: no later step ran.
      expect(r.lines.length).toBe(before.length + 1);
      expect(r.lines.at(-1)).toStartWith(`FAIL ${b.step}: `);
      expect(r.lines.at(-1)).toMatch(b.why);
    });
  }

  test("a path that is not an executable fails the sandbox step", async () => {
    using dir = tempDir("zerodb-smoke-test-");
    const r = await smoke(join(dir.path, "missing"));
    expect(r).toEqual({ code: 1, lines: [`FAIL sandbox: ${join(dir.path, "missing")} is not an executable file`], stderr: "" });
  });

  test("the unchanged binary passes every step", async () => {
    const r = await smoke(ZERODB);
    expect(r).toEqual({ code: 0, lines: ["ok sandbox", ...STEPS.map((s) => `ok ${s.name}`)], stderr: "" });
  });
});
