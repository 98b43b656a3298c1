/** Every transcript `capture sync` and `capture status` look at, of every harness captured. */
import { join } from "node:path";
import { findRollouts } from "../capture/codex.ts";
import { findChats } from "../capture/gemini.ts";
import { findSessions } from "../capture/opencode-db.ts";
import { findTranscripts } from "../capture/sync.ts";
import { claudeConfigDir, codexHome, type HarnessContext } from "../harness/index.ts";

/** Claude Code's transcripts, then Codex's rollouts, then Gemini CLI's chats (`~/.gemini/tmp`), then opencode's sessions (`<database>#<session id>`). */
export function allTranscripts(ctx: HarnessContext): string[] {
  return [
    ...findTranscripts(join(claudeConfigDir(ctx), "projects")),
    ...findRollouts(codexHome(ctx)),
    ...findChats(join(ctx.userHome, ".gemini")),
    ...findSessions(ctx.env, ctx.userHome),
  ];
}
