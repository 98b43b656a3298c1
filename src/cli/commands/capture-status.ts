import { existsSync } from "node:fs";
import { join } from "node:path";
import { type StatusRow, captureStatus } from "../../capture/sync.ts";
import { JOURNAL_FILE } from "../../sync/journal.ts";
import type { SyncStatus } from "../../sync/status.ts";
import { allTranscripts } from "../transcripts.ts";
import { withCaptureSink } from "../capture-sink.ts";
import { zcommand } from "../command.ts";
import { harnessContext } from "../connect-common.ts";
import { configFrom, withStore } from "../context.ts";

/** Shown where a transcript has no capture cursor yet, so no zerodb session holds its lines. */
const NOT_YET = "(not captured yet)";

/** `zerodb capture status`: per harness session (and subagent transcript), lines captured and lines behind. */
export default zcommand({
  meta: {
    name: "status",
    description:
      "Show, per Claude Code session, Codex thread, Gemini CLI chat and opencode session, its zerodb session and how many lines are captured and behind",
  },
  async run(args) {
    const config = configFrom(args);
    const transcripts = allTranscripts(harnessContext());
    const sessions = await withCaptureSink({ flags: args, config }, (sink) => captureStatus(sink, transcripts));
    // What capture stored here and has not reached the team server yet (DESIGN.md 16): read from the
    // local store and its sync journal, never the network; only for a local store that has synced.
    if (config.url || !existsSync(join(config.dataDir, JOURNAL_FILE))) return { sessions };
    const { syncStatus } = await import("../../sync/status.ts");
    const sync = await withStore(args, (store) => syncStatus(store, config.tenant ?? "local"));
    return sync ? { sessions, sync } : { sessions };
  },
  human: (r: { sessions: StatusRow[]; sync?: SyncStatus }, args) =>
    [renderStatus(r.sessions, { verbose: args.verbose === true }), ...(r.sync ? [syncLine(r.sync)] : [])].join("\n"),
});

/** The store's sync, in one line: when it last synced with which server, and how many of its records wait. */
export function syncLine(s: SyncStatus): string {
  const when = s.last_sync ? `last synced ${s.last_sync}` : "never synced to the end (a sync was interrupted)";
  return `sync: ${when} with ${s.url} (tenant ${s.tenant}); ${s.waiting} record(s) waiting to be pushed${s.waiting > 0 ? ": run `zerodb sync`" : ""}`;
}

/**
 * One row per transcript: the zerodb session its lines go to (the name
 * `sessions`, `search` and `read` show) beside Claude Code's session id,
 * then the counts (issue 17, item 9); --verbose adds the transcript's path.
 */
export function renderStatus(rows: StatusRow[], opts: { verbose: boolean }): string {
  if (rows.length === 0) return "no Claude Code, Codex, Gemini CLI or opencode transcripts found";
  const table = [
    ["zerodb session", "harness session", "captured", "behind", ...(opts.verbose ? ["transcript"] : [])],
    ...rows.map((s) => [s.capture_session ?? NOT_YET, s.source, String(s.lines_captured), String(s.lines_behind), ...(opts.verbose ? [s.transcript] : [])]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const lines = table.map((row, r) => {
    const text = row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ");
    const s = r > 0 ? rows[r - 1]! : undefined;
    return s?.missing ? `${text}  (transcript deleted)` : s?.replaced ? `${text}  (file replaced: read on as a new source)` : text;
  });
  const behind = rows.reduce((n, s) => n + s.lines_behind, 0);
  return [...lines, behind > 0 ? `${behind} line(s) behind: run \`zerodb capture sync\`` : "all captured"].join("\n");
}
