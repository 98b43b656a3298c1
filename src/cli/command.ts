/**
 * `zcommand`: a citty command whose run returns the operation's result; the
 * wrapper prints it (JSON with --json, the human rendering otherwise).
 */
import type { ArgsDef, CommandDef, ParsedArgs } from "citty";
import { type SharedFlags, sharedArgs } from "./args.ts";
import { parseFlags } from "./flags.ts";
import { writeOut } from "./stdout.ts";
import { LogLevels } from "./verbosity.ts";

type Shared = typeof sharedArgs;

/** A command definition of zerodb's CLI. */
export interface ZCommand<T extends ArgsDef> {
  meta: { name: string; description: string };
  args?: T;
  /** Does the work; the value returned is the result printed. `undefined` prints nothing. */
  run: (args: ParsedArgs<T & Shared> & SharedFlags) => Promise<unknown>;
  /** The rendering for people; JSON pretty-printed when absent. */
  // biome-ignore lint/suspicious/noExplicitAny: each command's args type differs, and citty's CommandDef is invariant in it
  human?: (result: any, args: ParsedArgs<T & Shared> & SharedFlags) => string;
  /** The exit code for a result that was printed but is a failure (doctor's failed checks); 0 when absent. */
  // biome-ignore lint/suspicious/noExplicitAny: each command's args type differs, and citty's CommandDef is invariant in it
  exitCode?: (result: any) => number;
  /**
   * The human text is the thing asked for itself (a version string, a shell
   * script): written as is, shown even with --quiet, and consola is not
   * loaded for it, so `zerodb version` starts light (DESIGN.md section 10).
   */
  plain?: true;
}

/** citty's defineCommand, which returns its argument: here so defining a command does not load citty (a hook never does). */
function defineCommand<T extends ArgsDef>(def: CommandDef<T>): CommandDef<T> {
  return def;
}

/** Defines a CLI command with the shared flags and result printing. */
export function zcommand<const T extends ArgsDef>(def: ZCommand<T>): CommandDef<T & Shared> {
  return defineCommand({
    meta: def.meta,
    args: { ...(def.args ?? ({} as T)), ...sharedArgs } as T & Shared,
    async run({ args, rawArgs }) {
      const a = args as ParsedArgs<T & Shared> & SharedFlags;
      // citty keeps a repeated flag's last value only; a flag declared `repeat: true` gets every value (flags.ts).
      const repeats = Object.entries(def.args ?? {}).filter(([, d]) => (d as { repeat?: boolean }).repeat === true);
      if (repeats.length > 0) {
        const all = parseFlags(rawArgs, { ...def.args, ...sharedArgs });
        for (const [name] of repeats) (a as Record<string, unknown>)[name] = all[name];
      }
      const result = await def.run(a);
      if (result === undefined) return;
      const failed = def.exitCode ? def.exitCode(result) : 0;
      if (a.json) await writeOut(`${JSON.stringify(result)}\n`);
      else {
        const text = def.human ? def.human(result, a) : JSON.stringify(result, null, 2);
        if (text !== "" && def.plain) await writeOut(text.endsWith("\n") ? text : `${text}\n`);
        else if (text !== "") {
          // Through consola as a result (stdout), so --quiet silences it like every other line but errors.
          const { ui, flushed } = await import("./log.ts");
          // A result that is a failure (doctor's failed checks) is the error's explanation: shown even with --quiet.
          const level = ui.level;
          if (failed !== 0) ui.level = Math.max(level, LogLevels.log);
          ui.log(text.endsWith("\n") ? text.slice(0, -1) : text);
          ui.level = level;
          await flushed();
        }
      }
      if (def.exitCode) process.exitCode = failed;
    },
  });
}
