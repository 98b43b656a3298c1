import { resolveHome } from "../../config.ts";
import { findDatabases } from "../../capture/opencode-db.ts";
import { runOpencodeHook } from "../../capture/opencode-hook.ts";
import { withCaptureSink } from "../capture-sink.ts";
import { syncDetached } from "../sync-detached.ts";
import { zcommand } from "../command.ts";
import { harnessContext } from "../harness-context.ts";
import { configFrom } from "../context.ts";
import { ui } from "../log.ts";

/**
 * `zerodb hook opencode <session id>`: what zerodb's opencode plugin runs
 * when a session goes idle (DESIGN.md 14). Writes nothing to stdout; every
 * failure goes to capture.log, exit 0.
 */
export default zcommand({
  meta: { name: "opencode", description: "Capture an opencode session from its database (run by zerodb's opencode plugin)" },
  args: { session: { type: "positional", required: false, description: "the opencode session id (ses_...)" } },
  async run(args) {
    await runOpencodeHook({
      config: () => configFrom(args),
      fallbackHome: () => resolveHome(),
      sessionId: typeof args.session === "string" ? args.session : undefined,
      databases: () => {
        const ctx = harnessContext();
        return findDatabases(ctx.env, ctx.userHome);
      },
      withSink: (config, fn) => withCaptureSink({ flags: args, config, syncInBackground: (o) => syncDetached(args, o) }, fn),
      warn: (line) => ui.warn(line),
    });
    return undefined;
  },
});
