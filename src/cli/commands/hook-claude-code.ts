import { writeSync } from "node:fs";
import { resolveHome } from "../../config.ts";
import { runHook } from "../../capture/hook.ts";
// Past the harness face on purpose: the face loads every editor and its libraries (jsonc-parser, smol-toml, diff),
// which a hook that must exit in milliseconds never needs; self.ts imports nothing.
import { selfCommand } from "../../harness/self.ts";
import { withCaptureSink } from "../capture-sink.ts";
import { syncDetached } from "../sync-detached.ts";
import { zcommand } from "../command.ts";
import { configFrom } from "../context.ts";
import { readHookStdin } from "../hook-stdin.ts";
import { ui } from "../log.ts";
import { writeOut } from "../stdout.ts";
import type { SharedFlags } from "../args.ts";

/**
 * `zerodb hook claude-code`: the Claude Code hook (DESIGN.md 7.2). Stdout
 * belongs to Claude Code (SessionStart's context JSON, nothing else); every
 * failure goes to capture.log and the exit code stays 0, because exit 2
 * would block the user's prompt.
 */
export default zcommand({
  meta: {
    name: "claude-code",
    description: "Capture a Claude Code session (the hook command for SessionStart, UserPromptSubmit, Stop, SubagentStop, PreCompact, SessionEnd)",
  },
  async run(args) {
    await runHook({
      config: () => configFrom(args),
      fallbackHome: () => resolveHome(),
      stdin: readHookStdin,
      writeOut,
      warn: (line) => ui.warn(line),
      // ZERODB_CAPTURE_TRACE=time leaves SQL uncounted: counting runs every statement through a proxy and
      // plans each one, which would be timed with the run (the hook bench).
      withSink: (config, fn) =>
        withCaptureSink({ flags: args, config, trace: traceSql(process.env.ZERODB_CAPTURE_TRACE), syncInBackground: (o) => syncDetached(args, o) }, fn),
      catchUp: (transcript) => {
        // Claude Code waits at most 1.5 s for SessionEnd hooks; a detached process with its
        // output redirected survives its exit and finishes the transcript (HARNESSES.md).
        const proc = Bun.spawn([...self(), "capture", "sync", "--transcript", transcript, ...storeFlags(args)], {
          stdio: ["ignore", "ignore", "ignore"],
          detached: true,
        });
        proc.unref();
      },
      // Straight to fd 2: the first use of process.stderr costs about 8 ms, which would be timed with the run.
      ...(process.env.ZERODB_CAPTURE_TRACE ? { trace: (line: string) => writeSync(2, `${line}\n`) } : {}),
    });
    return undefined;
  },
});

/** Whether the trace counts SQL: with ZERODB_CAPTURE_TRACE set to anything but `time`. */
export function traceSql(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "time";
}

/** This zerodb as a command: the compiled binary, or bun and the source entry in development. */
export function self(): string[] {
  const { command, prefix } = selfCommand(process.execPath, Bun.main);
  return [command, ...prefix];
}

/** The shared flags that select the store, passed on to the catch-up. */
export function storeFlags(args: SharedFlags): string[] {
  const out: string[] = [];
  for (const name of ["home", "data-dir", "url", "tenant", "token-file", "config"] as const) {
    const v = args[name];
    if (typeof v === "string") out.push(`--${name}`, v);
  }
  return out;
}
