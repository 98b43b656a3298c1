/**
 * opencode's capture hook: a plugin file, `<opencode config dir>/plugin/zerodb.js`
 * (HARNESSES.md "opencode"; opencode loads every `.js`/`.ts` file there at
 * start). On `session.idle` (a reply finished, or was aborted or failed) it
 * starts `zerodb hook opencode <session id>` detached, with its output
 * ignored, and returns at once: opencode never waits for it, and nothing it
 * does can throw into opencode. The file is zerodb's whole (recognised by
 * its first line): connect writes it, disconnect deletes it; a file of that
 * name that is not zerodb's is left alone and reported.
 */
import { dirname, join } from "node:path";
import { harnessNamed } from "./registry.ts";
import type { FileJob } from "./run-jobs.ts";
import type { SelfCommand } from "./self.ts";
import type { HarnessContext, Plan } from "./types.ts";

/** The first line of zerodb's plugin file: how connect, disconnect and doctor know it. */
export const PLUGIN_MARK = "// zerodb capture plugin: written by `zerodb connect --capture`, removed by `zerodb disconnect`.";

/** The argv the plugin runs (the session id is appended). */
export function opencodeHookArgv(self: SelfCommand, home: string): string[] {
  return [self.command, ...self.prefix, "--home", home, "hook", "opencode"];
}

/** The plugin file's path: `<opencode config dir>/plugin/zerodb.js`. */
export function opencodePluginPath(ctx: HarnessContext): string {
  return join(dirname(harnessNamed("opencode")!.configPath(ctx)!), "plugin", "zerodb.js");
}

/** The plugin's text for a hook argv. */
export function opencodePlugin(argv: string[]): string {
  return `${PLUGIN_MARK}
// On session.idle it starts \`zerodb hook opencode <session id>\` detached and returns at once,
// so opencode never waits for zerodb and no error of zerodb's reaches opencode.
import { spawn } from "node:child_process";

const COMMAND = ${JSON.stringify(argv)};

export const ZerodbCapture = async () => ({
  event: async ({ event }) => {
    try {
      if (event?.type !== "session.idle") return;
      const id = event.properties?.sessionID;
      if (typeof id !== "string" || !/^ses_[A-Za-z0-9]{1,100}$/.test(id)) return;
      const child = spawn(COMMAND[0], [...COMMAND.slice(1), id], { detached: true, stdio: "ignore", windowsHide: true });
      child.on("error", () => {});
      child.unref();
    } catch {
      // Capture is best effort: opencode goes on whatever happens here.
    }
  },
});
`;
}

/** The argv a zerodb plugin text runs, or undefined when the text is not zerodb's plugin. */
export function pluginArgv(text: string | undefined): string[] | undefined {
  if (text === undefined || !text.startsWith(PLUGIN_MARK)) return undefined;
  const m = /^const COMMAND = (\[.*\]);$/m.exec(text);
  try {
    const v = m ? (JSON.parse(m[1]!) as unknown) : undefined;
    return Array.isArray(v) && v.every((w) => typeof w === "string") ? (v as string[]) : [];
  } catch {
    return [];
  }
}

/** Plans writing the plugin for `argv`. */
export function planPlugin(text: string | undefined, argv: string[]): Plan {
  const want = opencodePlugin(argv);
  if (text === want) return { change: "unchanged" };
  if (text === undefined) return { change: "added", text: want };
  if (pluginArgv(text) === undefined)
    return { change: "foreign", detail: "a plugin/zerodb.js that zerodb did not write is there: left in place; run `zerodb capture sync` to capture opencode" };
  return { change: "updated", text: want };
}

/** Plans removing the plugin (the empty text: the job deletes the file). */
export function planRemovePlugin(text: string | undefined): Plan {
  if (text === undefined) return { change: "absent" };
  if (pluginArgv(text) === undefined) return { change: "foreign", detail: "plugin/zerodb.js is not zerodb's; left in place" };
  return { change: "removed", text: "" };
}

/** Installs the plugin running `argv`, or (undefined) removes zerodb's. */
export function opencodePluginJob(ctx: HarnessContext, argv: string[] | undefined): FileJob {
  return {
    target: "opencode",
    what: "hooks",
    label: "opencode capture plugin",
    path: opencodePluginPath(ctx),
    plan: (text) => (argv !== undefined ? planPlugin(text, argv) : planRemovePlugin(text)),
    wholeFile: true,
  };
}
