import { resolveHome } from "../../config.ts";
import { runCodexHook } from "../../capture/codex-hook.ts";
// Past the harness face on purpose, as hook-claude-code.ts: the face loads every editor and its libraries.
import { codexHome } from "../../harness/codex-home.ts";
import { withCaptureSink } from "../capture-sink.ts";
import { syncDetached } from "../sync-detached.ts";
import { zcommand } from "../command.ts";
import { harnessContext } from "../harness-context.ts";
import { configFrom } from "../context.ts";
import { ui } from "../log.ts";

/**
 * `zerodb hook codex '<json>'`: Codex's notify program (DESIGN.md 14).
 * Writes nothing to stdout; every failure goes to capture.log, exit 0.
 */
export default zcommand({
  meta: { name: "codex", description: "Capture a Codex thread (the notify program Codex runs after each turn, with its JSON argument)" },
  args: { notification: { type: "positional", required: false, description: "the JSON Codex passes" } },
  async run(args) {
    await runCodexHook({
      config: () => configFrom(args),
      fallbackHome: () => resolveHome(),
      payload: typeof args.notification === "string" ? args.notification : undefined,
      codexHome: codexHome(harnessContext()),
      withSink: (config, fn) => withCaptureSink({ flags: args, config, syncInBackground: (o) => syncDetached(args, o) }, fn),
      warn: (line) => ui.warn(line),
    });
    return undefined;
  },
});
