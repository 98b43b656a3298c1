/**
 * Gemini CLI chats as the capture tests see them. Written from HARNESSES.md
 * ("Gemini CLI") and the chat recording service of @google/gemini-cli 0.61
 * (its metadata, message, `$set` and `$rewindTo` records), not copied from a
 * real session.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ZERODB } from "../helpers.ts";

/** A throwaway ~/.gemini with one project folder whose `.project_root` names `cwd`. */
export function geminiLayout(root: string, name = "app") {
  const geminiDir = join(root, ".gemini");
  const cwd = join(root, "work", name);
  const projectDir = join(geminiDir, "tmp", name);
  const chats = join(projectDir, "chats");
  mkdirSync(chats, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(projectDir, ".project_root"), cwd);
  writeFileSync(join(geminiDir, "projects.json"), JSON.stringify({ projects: { [cwd]: name } }));
  return { home: root, geminiDir, cwd, chats, chat: (file: string) => join(chats, file) };
}
export type GeminiLayout = ReturnType<typeof geminiLayout>;

const TS = "2026-11-30T10:00:00.000Z";

/** Message records, by kind. */
export const msg = {
  user: (id: string, text: string) => ({ id, timestamp: TS, type: "user", content: [{ text }] }),
  gemini: (id: string, text: string, extra: object = {}) => ({
    id,
    timestamp: TS,
    type: "gemini",
    content: text,
    thoughts: [],
    tokens: null,
    model: "gemini-stand-in",
    ...extra,
  }),
  tool: (id: string, callId: string, output: string) =>
    msg.gemini(id, "", {
      toolCalls: [
        {
          id: callId,
          name: "run_shell_command",
          args: { command: "ls" },
          result: [{ functionResponse: { id: callId, name: "run_shell_command", response: { output } } }],
          status: "success",
          timestamp: TS,
        },
      ],
      thoughts: [{ subject: "Listing", description: "look at the files", timestamp: TS }],
    }),
  info: (id: string, text: string) => ({ id, timestamp: TS, type: "info", content: text }),
  /** A shell call as Gemini records one: the model's `output` (maybe cut, see cutOutput) and what the user saw in `resultDisplay`; `more` calls after it. */
  shell: (id: string, callId: string, command: string, output: string, resultDisplay: unknown, more: object[] = []) =>
    msg.gemini(id, "", {
      toolCalls: [
        {
          id: callId,
          name: "run_shell_command",
          args: { command },
          result: [{ functionResponse: { id: callId, name: "run_shell_command", response: { output } } }],
          status: "success",
          timestamp: TS,
          displayName: "Shell",
          resultDisplay,
        },
        ...more,
      ],
    }),
};

/**
 * What the model gets for a shell command's output when Gemini cuts it, as
 * gemini-cli's shell.ts, textUtils.ts `wrapUntrusted` and fileUtils.ts
 * `formatTruncatedToolOutput` build it (threshold 40,000 characters: the
 * first 20% and the last 80%).
 */
export function cutOutput(output: string, exitCode: number, threshold = 40_000): string {
  const text = `<untrusted_context>\nOutput: ${output}\nExit Code: ${exitCode}\nProcess Group PGID: 4242\n</untrusted_context>`;
  if (text.length <= threshold) return text;
  const head = Math.floor(threshold * 0.2);
  const tail = threshold - head;
  const omitted = text.length - head - tail;
  const n = (x: number) => x.toLocaleString("en-US");
  return `Output too large. Showing first ${n(head)} and last ${n(tail)} characters. For full output see: /home/u/.gemini/tmp/app/tool-outputs/run_shell_command_c1.txt
${text.slice(0, head)}

... [${n(omitted)} characters omitted] ...

${text.slice(-tail)}`;
}

/** The first line of a chat. */
export function chatHead(sessionId: string) {
  return { sessionId, projectHash: "f".repeat(64), startTime: TS, lastUpdated: TS, kind: "main" };
}

/** The notification Gemini pipes to a hook. */
export function hookInput(L: GeminiLayout, event: string, sessionId: string, transcript: string): string {
  return JSON.stringify({ session_id: sessionId, transcript_path: transcript, cwd: L.cwd, hook_event_name: event, timestamp: TS });
}

/** Runs `zerodb hook gemini` as Gemini would (stdin JSON). */
export function spawnGeminiHook(L: GeminiLayout, stdin: string) {
  return Bun.spawn([ZERODB, "hook", "gemini"], {
    cwd: L.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: L.home, ZERODB_HOME: join(L.home, "zerodb"), GEMINI_SESSION_ID: "x", CLAUDE_PROJECT_DIR: L.cwd },
    stdin: new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
}
