import { resolve } from "node:path";
import { type SyncResult, syncTranscripts } from "../../capture/sync.ts";
import { allTranscripts } from "../transcripts.ts";
import { withCaptureSink } from "../capture-sink.ts";
import { syncDetached } from "../sync-detached.ts";
import { zcommand } from "../command.ts";
import { harnessContext } from "../connect-common.ts";
import { configFrom } from "../context.ts";
import { type Progress, byteProgress } from "../progress.ts";

/** `zerodb capture sync`: backfills every transcript of every harness (Claude Code, Codex, Gemini CLI, opencode) at once, with progress on a TTY (DESIGN.md 7.2, 14). */
export default zcommand({
  meta: { name: "sync", description: "Capture every Claude Code, Codex, Gemini CLI and opencode transcript up to its end (not bounded per run like the hook)" },
  args: {
    transcript: {
      type: "string",
      description: "only this transcript (and its subagents), or one opencode session as <database>#<session id>",
      valueHint: "file",
    },
  },
  async run(args) {
    const config = configFrom(args);
    const transcripts = typeof args.transcript === "string" ? [resolve(args.transcript)] : allTranscripts(harnessContext());
    let progress: Progress | undefined;
    const onProgress = (bytes: number, total: number) => {
      progress ??= byteProgress("capturing transcripts", total, { minBytes: 1024 * 1024 });
      progress.update(bytes);
    };
    try {
      // Like a hook: what it captured goes to the team server in the background (the SessionEnd catch-up runs this).
      const syncInBackground = (o?: { trailing?: boolean }) => syncDetached(args, o);
      return await withCaptureSink({ flags: args, config, syncInBackground }, (sink) =>
        syncTranscripts(sink, transcripts, { redact: config.redact, onProgress }),
      );
    } finally {
      progress?.done();
    }
  },
  human: (r: SyncResult) =>
    [
      `captured ${r.appended} entries (${r.lines} lines, ${r.skipped} already stored) from ${r.transcripts} transcript(s)`,
      ...r.warnings.map((w) => `warning: ${w}`),
    ].join("\n"),
});
