/**
 * `zerodb hook codex`: Codex's notify program (HARNESSES.md "Codex CLI").
 * Codex runs it after each turn with one JSON argument (`type`,
 * `thread-id`, `cwd`, ...); it captures that thread's rollout beyond its
 * cursor. Codex starts notify and does not wait for it, so a run is not
 * bounded as the Claude Code hook's is: it catches the rollout up to its
 * end, in batches (as `capture sync` does), and a thread is never left
 * behind at its last turn. It never fails Codex: whatever goes wrong is one
 * line in capture.log.
 */
import type { Config } from "../config.ts";
import { captureSession, projectSession } from "../project.ts";
import { codexSource, findRollout, spawnedRollouts, threadOrigin } from "./codex.ts";
import { describe } from "./hook.ts";
import { RUN_MAX_BYTES, SYNC_BATCH_ENTRIES } from "./limits.ts";
import { logProblems } from "./log.ts";
import { captureSources } from "./run.ts";
import type { CaptureSink } from "./sink.ts";
import { transcriptCwd } from "./sync.ts";

/** What the Codex hook needs from its process; the CLI command binds these. */
export interface CodexHookIo {
  config(): Config;
  fallbackHome(): string;
  /** The JSON argument Codex passed, if any. */
  payload: string | undefined;
  /** `$CODEX_HOME` or `~/.codex`. */
  codexHome: string;
  withSink<T>(config: Config, fn: (sink: CaptureSink) => Promise<T>): Promise<T>;
  warn?(line: string): void;
}

/** Runs the hook; resolves when done, never rejects. */
export async function runCodexHook(io: CodexHookIo): Promise<void> {
  let home: string | undefined;
  let thread = "?";
  const problems: string[] = [];
  try {
    const config = io.config();
    home = config.home;
    if (config.file.capture?.enabled === false) return;
    const note = parsePayload(io.payload);
    thread = note.thread;
    const rollout = findRollout(io.codexHome, note.thread);
    if (rollout === undefined) {
      problems.push(`no rollout of thread ${note.thread} under ${io.codexHome}/sessions`);
    } else {
      // The rollout's own cwd first, as `capture sync` reads it: both put the thread in one session.
      const cwd = transcriptCwd(rollout) ?? note.cwd;
      if (cwd === undefined) throw new Error("neither the rollout nor the notification names a working directory");
      // A subagent thread Codex spawned goes into its parent's session, marked as a sidechain (as `capture sync` does).
      const origin = threadOrigin(rollout);
      // Codex's notify for a spawned thread's turn is not reliable: a root thread's run catches up the threads spawned under it.
      const spawned = origin.parent === undefined ? spawnedRollouts(io.codexHome, note.thread, rollout) : [];
      const r = await io.withSink(config, (sink) =>
        captureSources({
          sink,
          sources: [codexSource(rollout, note.thread, origin), ...spawned.map((c) => codexSource(c.path, c.thread, c.origin))],
          session: captureSession(projectSession(cwd), origin.parent ?? note.thread),
          redact: config.redact,
          budget: { entries: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY, batchEntries: SYNC_BATCH_ENTRIES, batchBytes: RUN_MAX_BYTES },
        }),
      );
      problems.push(...r.warnings);
    }
  } catch (err) {
    problems.push(describe(err));
  }
  logProblems({ home: () => home ?? io.fallbackHome(), who: `codex thread=${thread}`, problems, warn: io.warn });
}

/** The thread and cwd of a notification; throws a log-safe error on anything else. */
function parsePayload(text: string | undefined): { thread: string; cwd?: string } {
  if (text === undefined) throw new Error("no notification argument");
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error("the notification argument is not JSON");
  }
  const o = (typeof v === "object" && v !== null ? v : {}) as Record<string, unknown>;
  const thread = o["thread-id"] ?? o.thread_id;
  if (typeof thread !== "string" || !/^[0-9A-Za-z-]{1,100}$/.test(thread)) throw new Error("the notification names no thread-id");
  return { thread, ...(typeof o.cwd === "string" && o.cwd !== "" ? { cwd: o.cwd } : {}) };
}
