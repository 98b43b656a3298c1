/**
 * Secrets in escaped text are redacted by the capture of every harness
 * (issue 29 item 3): a tool that prints JSON hands the harness a `.env` with
 * literal `\n` between its lines, and Codex's `function_call_output` wraps a
 * command's JSON output in a JSON string once more. Each harness's transcript
 * carries the same escaped and doubly escaped outputs; no byte of either
 * secret reaches the store, and the stored output still parses as JSON.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { filesContaining, tempDir } from "../helpers.ts";
import { codexLayout, rolloutLines } from "./_codex.ts";
import { appendLines, claudeLayout, conversation, jsonl, onlyCaptureSession, readSession, runHook, runJson } from "./_fixtures.ts";
import { chatHead, geminiLayout, msg } from "./_gemini.ts";
import { opencodeDb, project, sync, toolPart } from "./_opencode.ts";

// Fake secrets: none is a real credential.
const DB_PASSWORD = "Zq9vN3kLm2Pw7xR4";
const SECRET_KEY = "k3J9xQm2Lp7vN3sW8yZ1bC6dF0gH";
const ENV = `# .env\nDB_PASSWORD=${DB_PASSWORD}\nSECRET_KEY=${SECRET_KEY}\n`;
/** `cat .env | jq -R -s '{stdout: .}'`: the .env inside a JSON string. */
const ESCAPED = JSON.stringify({ stdout: ENV });
/** The same printed by a tool whose output is itself put in a JSON string. */
const DOUBLY = JSON.stringify({ output: ESCAPED, metadata: { exit_code: 0 } });

/** No byte of either secret in the store, and every stored turn that held an output still parses where it did. */
async function expectRedacted(home: string, session: string): Promise<void> {
  for (const s of [DB_PASSWORD, SECRET_KEY]) expect(filesContaining(join(home, "zerodb"), s)).toEqual([]);
  const turns = await readSession(home, session);
  const outputs = turns.map((t) => t.content).filter((c) => c.includes("DB_PASSWORD"));
  expect(outputs.length).toBeGreaterThanOrEqual(2);
  for (const c of outputs) expect(c).toContain("DB_PASSWORD=[redacted:assignment]");
  // What was a JSON document is one still, its strings decoding to the redacted .env.
  const docs = outputs.flatMap((c) => [...c.matchAll(/\{"(?:stdout|output)".*\}/g)].map((m) => m[0]));
  expect(docs.length).toBeGreaterThanOrEqual(2);
  for (const d of docs) {
    const v = JSON.parse(d) as { stdout?: string; output?: string };
    const env = v.stdout ?? (JSON.parse(v.output!) as { stdout: string }).stdout;
    expect(env).toBe("# .env\nDB_PASSWORD=[redacted:assignment]\nSECRET_KEY=[redacted:assignment]\n");
  }
}

describe("capture redacts escaped text on every harness (issue 29 item 3)", () => {
  test("Claude Code: tool results holding the escaped and the doubly escaped .env", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    const SID = "5ec2e700-0000-4000-8000-000000000029";
    const c = conversation(SID, L.cwd);
    appendLines(L.transcript(SID), [
      c.user("show me the env"),
      c.assistant([{ type: "tool_use", id: "t1", name: "Bash", input: { command: "jq -R -s '{stdout: .}' .env" } }]),
      c.toolResult("t1", [{ type: "text", text: ESCAPED }]),
      c.toolResult("t1", [{ type: "text", text: DOUBLY }]),
    ]);
    expect((await runHook(L, "Stop", SID)).code).toBe(0);
    await expectRedacted(L.home, await onlyCaptureSession(L.home));
  }, 60_000);

  test("Codex: function_call_output holding them", async () => {
    using dir = tempDir();
    const L = codexLayout(dir.path);
    const T = "019a0000-2929-7000-8000-000000000029";
    const lines = rolloutLines(T, L.cwd, 1) as { type: string; payload: Record<string, unknown> }[];
    const call = (output: string, n: number) => ({
      timestamp: "2026-11-30T10:00:00.000Z",
      ordinal: 100 + n,
      type: "response_item",
      payload: { type: "function_call_output", call_id: "call_0", output },
    });
    writeFileSync(L.rollout(T), [...lines, call(ESCAPED, 0), call(DOUBLY, 1)].map(jsonl).join(""));
    await runJson(["capture", "sync"], { home: dir.path, env: { CODEX_HOME: L.codexHome, CLAUDE_CONFIG_DIR: join(dir.path, "no-claude") } });
    await expectRedacted(dir.path, await onlyCaptureSession(dir.path));
  }, 60_000);

  test("Gemini CLI: a shell tool's output holding them", async () => {
    using dir = tempDir();
    const L = geminiLayout(dir.path);
    const SID = "9e000000-2929-4000-8000-000000000029";
    appendLines(L.chat("session-2026-11-30T10-00-29.jsonl"), [
      chatHead(SID),
      msg.user("u1", "show me the env"),
      msg.tool("g1", "c1", ESCAPED),
      msg.tool("g2", "c2", DOUBLY),
    ]);
    await runJson(["capture", "sync"], { home: dir.path, env: { CLAUDE_CONFIG_DIR: join(dir.path, "no-claude"), CODEX_HOME: join(dir.path, "no-codex") } });
    await expectRedacted(dir.path, await onlyCaptureSession(dir.path));
  }, 60_000);

  test("opencode: a bash tool part's output holding them", async () => {
    using dir = tempDir();
    const oc = opencodeDb(dir.path);
    const s = oc.session(project(dir.path));
    const u = oc.user(s, ["show me the env"]);
    const a = oc.assistant(s, u);
    oc.part(s, a, toolPart("bash", "call_1", { command: "cat .env" }, ESCAPED));
    oc.part(s, a, toolPart("bash", "call_2", { command: "cat .env" }, DOUBLY));
    oc.close();
    await sync(dir.path);
    await expectRedacted(dir.path, await onlyCaptureSession(dir.path));
  }, 60_000);
});
