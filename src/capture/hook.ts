/**
 * `zerodb hook claude-code` (DESIGN.md 7.2): one run per hook event. It reads
 * the event from stdin, captures what the session's transcripts hold beyond
 * their cursors (bounded per run), and on SessionStart records the project's
 * latest capture and prints a starting context. It never blocks or breaks
 * the harness: whatever fails becomes one line in capture.log and exit 0.
 */
import type { Config } from "../config.ts";
import { tooLarge, toZeroDbError } from "../errors.ts";
import { captureSession, projectSession } from "../project.ts";
import { type HookEvent, parseHookEvent } from "./event.ts";
import { HOOK_INPUT_MAX_BYTES, RUN_MAX_BYTES, RUN_MAX_ENTRIES, SESSION_END_DEADLINE_MS, SESSION_END_MAX_BYTES } from "./limits.ts";
import { logProblems } from "./log.ts";
import { type RunResult, captureSources } from "./run.ts";
import type { CaptureSink } from "./sink.ts";
import { harnessSessionId, mainSource, subagentSources } from "./sources.ts";
import { startContext } from "./start-context.ts";

/** Events that may come before the transcript exists. */
const EARLY_EVENTS = new Set(["SessionStart", "UserPromptSubmit", "SessionEnd"]);

/** What the hook needs from its process; the CLI command binds these. */
export interface HookIo {
  /** The configuration; may throw (a bad config file). */
  config(): Config;
  /** The home to log to when the configuration cannot be read. */
  fallbackHome(): string;
  stdin(): Promise<Uint8Array>;
  writeOut(text: string): Promise<void>;
  withSink<T>(config: Config, fn: (sink: CaptureSink) => Promise<T>): Promise<T>;
  /** Starts a detached catch-up of one transcript that outlives the hook (SessionEnd). */
  catchUp?(transcriptPath: string): void;
  /** Receives a problem line when capture.log cannot take it (stderr: never stdout, which is Claude Code's). */
  warn?(line: string): void;
  /** Receives one JSON line of figures when tracing is on. */
  trace?(line: string): void;
}

/** Runs the hook; resolves when done, never rejects. */
export async function runHook(io: HookIo): Promise<void> {
  // Milliseconds since the process started (performance.now's origin), for the trace.
  const at: Record<string, number> = { entered: performance.now() };
  let home: string | undefined;
  let event: HookEvent | undefined;
  const problems: string[] = [];
  let output = "";
  try {
    const config = io.config();
    home = config.home;
    event = parseHookEvent(await readStdin(io));
    // The hook's presence is the opt-in; an explicit `capture.enabled: false` turns it off.
    if (config.file.capture?.enabled === false) return;
    const ev = event;
    const harnessId = harnessSessionId(ev.transcript_path, ev.session_id);
    const project = projectSession(ev.cwd);
    const session = captureSession(project, harnessId);
    const isEnd = ev.hook_event_name === "SessionEnd";
    const entries = config.file.capture?.max_entries_per_run ?? RUN_MAX_ENTRIES;
    const result = await io.withSink(config, async (sink) => {
      at.opened = performance.now();
      if (ev.hook_event_name === "SessionStart") {
        try {
          output = await startContext(sink.memory, { project, session, harnessSession: harnessId, source: ev.source });
        } catch (err) {
          problems.push(`start context: ${describe(err)}`);
        }
      }
      const r = await captureSources({
        sink,
        sources: [mainSource(ev.transcript_path, harnessId), ...subagentSources(ev.transcript_path, harnessId)],
        session,
        redact: config.redact,
        budget: isEnd ? { entries, bytes: SESSION_END_MAX_BYTES, deadline: SESSION_END_DEADLINE_MS } : { entries, bytes: RUN_MAX_BYTES },
      });
      at.captured = performance.now();
      io.trace?.(JSON.stringify({ event: ev.hook_event_name, ...summary(r), sql: (sink as { trace?: unknown }).trace, ms: rounded(at) }));
      return r;
    });
    // Claude Code creates the transcript only once the first prompt is queued, after SessionStart and
    // UserPromptSubmit have run, and a session quit before any prompt ends without one: no problem then.
    const early = EARLY_EVENTS.has(ev.hook_event_name);
    problems.push(...result.warnings.filter((w) => !(early && w.startsWith("transcript not found"))));
    // The catch-up finds the session by the file's name, so only when the hook did too.
    if (isEnd && result.behind && harnessSessionId(ev.transcript_path) === harnessId) io.catchUp?.(ev.transcript_path);
  } catch (err) {
    problems.push(describe(err));
  }
  const who = event ? `${event.hook_event_name} session=${event.session_id}` : "hook";
  logProblems({ home: () => home ?? io.fallbackHome(), who, problems, warn: io.warn });
  if (output !== "" && event) {
    try {
      await io.writeOut(`${JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: output } })}\n`);
    } catch {
      // Claude Code closed the pipe: nothing to tell it.
    }
  }
}

async function readStdin(io: HookIo): Promise<string> {
  const bytes = await io.stdin();
  // A typed error: the log line says too_large, not internal, for input that is merely too big.
  if (bytes.byteLength > HOOK_INPUT_MAX_BYTES) throw tooLarge("stdin", `the hook input is over ${HOOK_INPUT_MAX_BYTES} bytes`);
  return new TextDecoder().decode(bytes);
}

function rounded(at: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(at).map(([k, v]) => [k, Math.round(v * 10) / 10]));
}

function summary(r: RunResult) {
  return { appended: r.appended, skipped: r.skipped, lines: r.lines, bytes: r.bytes, behind: r.behind };
}

/** A log-safe description: the code and message of a ZeroDbError, never a stack or transcript text. */
export function describe(err: unknown): string {
  const e = toZeroDbError(err);
  if (e.code !== "internal") return `${e.code}: ${e.message}`;
  const cause = e.cause instanceof Error ? `${e.cause.name}: ${e.cause.message}` : String(err);
  return `internal: ${cause.slice(0, 300)}`;
}
