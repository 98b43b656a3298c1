import { resolveHome } from "../../config.ts";
import { runGeminiHook } from "../../capture/gemini-hook.ts";
import { withCaptureSink } from "../capture-sink.ts";
import { self, storeFlags } from "./hook-claude-code.ts";
import { syncDetached } from "../sync-detached.ts";
import { zcommand } from "../command.ts";
import { configFrom } from "../context.ts";
import { readHookStdin } from "../hook-stdin.ts";
import { ui } from "../log.ts";

/**
 * `zerodb hook gemini`: the Gemini CLI hook (DESIGN.md 14). Writes nothing
 * to stdout (Gemini shows it to the user); every failure goes to
 * capture.log and the exit code stays 0 (any code but 0 and 1 blocks).
 */
export default zcommand({
  meta: { name: "gemini", description: "Capture a Gemini CLI chat (the hook command for AfterAgent, PreCompress, SessionEnd)" },
  async run(args) {
    await runGeminiHook({
      config: () => configFrom(args),
      fallbackHome: () => resolveHome(),
      stdin: readHookStdin,
      withSink: (config, fn) => withCaptureSink({ flags: args, config, syncInBackground: (o) => syncDetached(args, o) }, fn),
      warn: (line) => ui.warn(line),
      catchUp: (chat) => {
        const proc = Bun.spawn([...self(), "capture", "sync", "--transcript", chat, ...storeFlags(args)], {
          stdio: ["ignore", "ignore", "ignore"],
          detached: true,
        });
        proc.unref();
      },
    });
    return undefined;
  },
});
