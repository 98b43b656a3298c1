import { join } from "node:path";
import { type StatusRow, captureStatus, findTranscripts } from "../../capture/sync.ts";
import { claudeConfigDir } from "../../harness/index.ts";
import { withCaptureSink } from "../capture-sink.ts";
import { zcommand } from "../command.ts";
import { harnessContext } from "../connect-common.ts";
import { configFrom } from "../context.ts";

/** `zerodb capture status`: per harness session (and subagent transcript), lines captured and lines behind. */
export default zcommand({
  meta: { name: "status", description: "Show, per Claude Code session, how many transcript lines are captured and how many are behind" },
  async run(args) {
    const config = configFrom(args);
    const transcripts = findTranscripts(join(claudeConfigDir(harnessContext()), "projects"));
    const sessions = await withCaptureSink({ flags: args, config }, (sink) => captureStatus(sink, transcripts));
    return { sessions };
  },
  human: (r: { sessions: StatusRow[] }) => {
    if (r.sessions.length === 0) return "no Claude Code transcripts found";
    const lines = r.sessions.map((s) => `${s.source}  captured ${s.lines_captured}  behind ${s.lines_behind}${s.missing ? "  (transcript deleted)" : ""}`);
    const behind = r.sessions.reduce((n, s) => n + s.lines_behind, 0);
    return [...lines, behind > 0 ? `${behind} line(s) behind: run \`zerodb capture sync\`` : "all captured"].join("\n");
  },
});
