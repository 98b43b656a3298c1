/**
 * `zerodb hook opencode <session id>`: run by zerodb's opencode plugin
 * (harness/opencode-plugin.ts) when a session goes idle. opencode does not
 * wait for it (the plugin starts it detached), so a run is not bounded as
 * the Claude Code hook's is: it catches the session up to its last finished
 * message, with its subagents' sessions (sidechain), in batches as `capture
 * sync` does. It never fails opencode: whatever goes wrong is one line in
 * capture.log.
 */
import type { Config } from "../config.ts";
import { captureSession, projectSession } from "../project.ts";
import { describe } from "./hook.ts";
import { RUN_MAX_BYTES, SYNC_BATCH_ENTRIES } from "./limits.ts";
import { logProblems } from "./log.ts";
import { opencodeSource } from "./opencode.ts";
import { rootSession, sessionFamily, sessionRow, withDatabase } from "./opencode-db.ts";
import { captureSources } from "./run.ts";
import type { CaptureSink } from "./sink.ts";

/** What the opencode hook needs from its process; the CLI command binds these. */
export interface OpencodeHookIo {
  config(): Config;
  fallbackHome(): string;
  /** The session id the plugin passed, if any. */
  sessionId: string | undefined;
  /** The databases to look in (opencode.ts findDatabases). */
  databases(): string[];
  withSink<T>(config: Config, fn: (sink: CaptureSink) => Promise<T>): Promise<T>;
  warn?(line: string): void;
}

/** Runs the hook; resolves when done, never rejects. */
export async function runOpencodeHook(io: OpencodeHookIo): Promise<void> {
  let home: string | undefined;
  const id = io.sessionId ?? "?";
  const problems: string[] = [];
  try {
    const config = io.config();
    home = config.home;
    if (config.file.capture?.enabled === false) return;
    if (io.sessionId === undefined || !/^ses_[A-Za-z0-9]{1,100}$/.test(io.sessionId)) throw new Error("no opencode session id (ses_...) given");
    const sessionId = io.sessionId;
    const found = io.databases().flatMap((db) => {
      const hit = withDatabase(db, (d) => {
        const row = sessionRow(d, sessionId);
        if (row === undefined) return undefined;
        const root = rootSession(d, row);
        return { db, root, family: sessionFamily(d, root) };
      });
      return hit ? [hit] : [];
    })[0];
    if (found === undefined) {
      problems.push(`no opencode database holds session ${sessionId}`);
    } else {
      const r = await io.withSink(config, (sink) =>
        captureSources({
          sink,
          sources: found.family.map((s) => opencodeSource(found.db, s)),
          session: captureSession(projectSession(found.root.directory), found.root.id),
          redact: config.redact,
          budget: { entries: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY, batchEntries: SYNC_BATCH_ENTRIES, batchBytes: RUN_MAX_BYTES },
        }),
      );
      problems.push(...r.warnings);
    }
  } catch (err) {
    problems.push(describe(err));
  }
  logProblems({ home: () => home ?? io.fallbackHome(), who: `opencode session=${id}`, problems, warn: io.warn });
}
