/**
 * `zerodb hook gemini`: Gemini CLI's AfterAgent, PreCompress and SessionEnd
 * hook (HARNESSES.md "Gemini CLI"). Its stdin names the chat file
 * (`transcript_path`) and the session; the hook captures that chat and its
 * subagents' chats beyond their cursors, bounded per run as the Claude Code
 * hook is (Gemini waits for its hooks); at SessionEnd a chat still behind
 * is finished by a detached `capture sync`, as Claude Code's is. Gemini deletes old chats itself, so capture happens here, as the
 * session goes. Exit 0 with nothing on stdout (Gemini shows stdout to the
 * user; any exit code but 0 and 1 blocks): problems go to capture.log.
 */
import type { Config } from "../config.ts";
import { captureSession, projectSession } from "../project.ts";
import { chatCwd, chatPlace, chatSessionId, geminiSource, subagentChats } from "./gemini.ts";
import { describe } from "./hook.ts";
import { HOOK_INPUT_MAX_BYTES, RUN_MAX_BYTES, RUN_MAX_ENTRIES } from "./limits.ts";
import { logProblems } from "./log.ts";
import { captureSources } from "./run.ts";
import type { CaptureSink } from "./sink.ts";

/** What the Gemini hook needs from its process; the CLI command binds these. */
export interface GeminiHookIo {
  config(): Config;
  fallbackHome(): string;
  stdin(): Promise<Uint8Array>;
  withSink<T>(config: Config, fn: (sink: CaptureSink) => Promise<T>): Promise<T>;
  /** Starts a detached catch-up of one chat that outlives the hook (SessionEnd). */
  catchUp?(chatPath: string): void;
  warn?(line: string): void;
}

/** Runs the hook; resolves when done, never rejects. */
export async function runGeminiHook(io: GeminiHookIo): Promise<void> {
  let home: string | undefined;
  let who = "gemini";
  const problems: string[] = [];
  try {
    const config = io.config();
    home = config.home;
    const bytes = await io.stdin();
    if (bytes.byteLength > HOOK_INPUT_MAX_BYTES) throw new Error(`the hook input is over ${HOOK_INPUT_MAX_BYTES} bytes`);
    if (config.file.capture?.enabled === false) return;
    const ev = parseEvent(new TextDecoder().decode(bytes));
    who = `gemini ${ev.event} session=${ev.sessionId ?? "?"}`;
    // No chat recorded (recording off, or nothing said yet): nothing to capture.
    if (ev.transcript === undefined) return;
    const place = chatPlace(ev.transcript);
    if (place === undefined) throw new Error("transcript_path is not a Gemini CLI chat file (<project>/chats/session-*.jsonl)");
    const sessionId = chatSessionId(ev.transcript, place) ?? ev.sessionId;
    const cwd = chatCwd(place) ?? ev.cwd;
    if (sessionId === undefined || cwd === undefined) throw new Error("neither the chat nor the hook input names the session and its directory");
    const sources = [geminiSource(ev.transcript, place), ...subagentChats(ev.transcript, sessionId).map((p) => geminiSource(p, chatPlace(p)!))];
    const entries = config.file.capture?.max_entries_per_run ?? RUN_MAX_ENTRIES;
    const r = await io.withSink(config, (sink) =>
      captureSources({
        sink,
        sources,
        session: captureSession(projectSession(cwd), sessionId),
        redact: config.redact,
        budget: { entries, bytes: RUN_MAX_BYTES },
      }),
    );
    // SessionStart-like events may come before the chat file exists.
    problems.push(...r.warnings.filter((w) => !w.startsWith("transcript not found")));
    if (ev.event === "SessionEnd" && r.behind) io.catchUp?.(ev.transcript);
  } catch (err) {
    problems.push(describe(err));
  }
  logProblems({ home: () => home ?? io.fallbackHome(), who, problems, warn: io.warn });
}

/** The fields of the hook input capture uses; throws a log-safe error when it is not JSON. */
function parseEvent(text: string): { event: string; sessionId?: string; transcript?: string; cwd?: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error("the hook input is not JSON");
  }
  const o = (typeof v === "object" && v !== null ? v : {}) as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === "string" && o[k] !== "" ? (o[k] as string) : undefined);
  const sessionId = str("session_id");
  const transcript = str("transcript_path");
  const cwd = str("cwd");
  return {
    event: str("hook_event_name")?.slice(0, 64) ?? "?",
    ...(sessionId ? { sessionId: sessionId.slice(0, 200) } : {}),
    ...(transcript ? { transcript } : {}),
    ...(cwd ? { cwd } : {}),
  };
}
