/**
 * Step `hook`: `zerodb hook claude-code` run the way Claude Code runs it
 * (event JSON on stdin, cwd the project) for SessionStart and then Stop over
 * a small transcript in Claude Code's JSONL format (DESIGN.md 7.2). A hook
 * exits 0 even when it fails (it must never break the harness), so the step
 * checks what it did: the transcript's lines are in the store under the
 * project's capture session, the project's latest-capture fact is set, stdout
 * holds at most the SessionStart context JSON, and capture.log is empty.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, describe, expect, runJson } from "../sandbox.ts";

const SESSION_ID = "5b7a3c1e-0d4f-4e8a-9c2b-7f1e6d5a4b3c";

/** Two transcript lines, a user prompt and an assistant answer, as Claude Code writes them. */
function transcriptLines(cwd: string, word: string): string {
  const base = { isSidechain: false, userType: "external", cwd, sessionId: SESSION_ID, version: "2.1.0", gitBranch: "main" };
  const user = {
    ...base,
    parentUuid: null,
    type: "user",
    uuid: "00000000-0000-4000-8000-000000000001",
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: `where does the ${word} config live?` },
  };
  const assistant = {
    ...base,
    parentUuid: user.uuid,
    type: "assistant",
    uuid: "00000000-0000-4000-8000-000000000002",
    timestamp: "2026-01-01T00:00:02.000Z",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-smoke",
      content: [{ type: "text", text: `the ${word} config lives in etc` }],
      stop_reason: "end_turn",
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  };
  return `${JSON.stringify(user)}\n${JSON.stringify(assistant)}\n`;
}

/** Captures a two-line session through SessionStart and Stop. */
export async function hook(sb: Sandbox): Promise<void> {
  const claudeDir = join(sb.home, ".claude", "projects", sb.project.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(claudeDir, { recursive: true });
  const transcript = join(claudeDir, `${SESSION_ID}.jsonl`);
  const word = `hookword${Math.random().toString(36).slice(2, 8)}`;
  writeFileSync(transcript, transcriptLines(sb.project, word));
  const event = (name: string, extra: object = {}) =>
    JSON.stringify({ session_id: SESSION_ID, transcript_path: transcript, cwd: sb.project, permission_mode: "default", hook_event_name: name, ...extra });

  const args = ["hook", "claude-code"];
  const start = await sb.run(args, { stdin: event("SessionStart", { source: "startup" }) });
  expect(start.code === 0, describe(args, start));
  if (start.stdout.trim() !== "") {
    let out: { hookSpecificOutput?: { hookEventName?: string } } | undefined;
    try {
      out = JSON.parse(start.stdout);
    } catch {
      out = undefined;
    }
    expect(
      out?.hookSpecificOutput?.hookEventName === "SessionStart",
      `SessionStart stdout is not Claude Code's hook JSON: ${JSON.stringify(start.stdout.slice(0, 200))}`,
    );
  }
  const stop = await sb.run(args, { stdin: event("Stop", { stop_hook_active: false }) });
  expect(stop.code === 0, describe(args, stop));
  expect(stop.stdout === "", `Stop wrote to stdout, which Claude Code reads: ${JSON.stringify(stop.stdout.slice(0, 200))}`);

  const log = join(sb.zerodbHome, "logs", "capture.log");
  expect(
    !existsSync(log) || readFileSync(log, "utf8").trim() === "",
    `capture.log reports a failure: ${existsSync(log) ? readFileSync(log, "utf8").trim().split("\n")[0] : ""}`,
  );

  const found = await runJson<{ hits?: { session: string; role: string }[] }>(sb, ["search", word]);
  const hits = found.hits ?? [];
  // The project session is the working directory's base name plus a path hash (DESIGN.md 7.2).
  const inCapture = hits.filter((h) => h.session.startsWith("smoke-project-") && h.session.includes("/"));
  expect(inCapture.length === 2, `search ${word} found ${inCapture.length} captured lines, not 2: ${JSON.stringify(hits).slice(0, 300)}`);
  const project = inCapture[0]!.session.split("/")[0]!;
  const fact = await sb.run(["fact", "get", `project/${project}/latest-capture`, "--json"]);
  expect(fact.code === 0, `SessionStart recorded no project/${project}/latest-capture fact: ${describe(["fact", "get"], fact)}`);
}
