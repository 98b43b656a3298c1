/**
 * The CLI's one consola instance: every line meant for a person goes through
 * it, so --quiet and --verbose act everywhere alike. Results (type `log`) go
 * to stdout as they are; every other type is a message and goes to stderr,
 * as DESIGN.md 6.3 wants and as `zerodb mcp` needs (stdout is the protocol's).
 * Off a terminal, or with NO_COLOR, the reporter is plain: the text and
 * nothing else, so scripts and tests read the same lines as before consola.
 */
import { type ConsolaInstance, type ConsolaReporter, type LogObject, type LogType, createConsola } from "consola/core";
import { colorOn } from "./color.ts";
import { writeOut } from "./stdout.ts";
import { verbosity } from "./verbosity.ts";

/** On a terminal: consola's symbols and colours for each kind of message. */
const FANCY: Partial<Record<LogType, [symbol: string, sgr: number]>> = {
  fatal: ["✖", 31],
  error: ["✖", 31],
  fail: ["✖", 31],
  warn: ["⚠", 33],
  info: ["ℹ", 36],
  start: ["◐", 35],
  success: ["✔", 32],
  ready: ["✔", 32],
  debug: ["⚙", 90],
  trace: ["→", 90],
  verbose: ["→", 90],
};

let pending: Promise<void> = Promise.resolve();

/** Writes a result to stdout; `flushed()` resolves once the bytes are handed to the OS (pipes included). */
function writeResult(text: string): void {
  const line = text.endsWith("\n") ? text : `${text}\n`;
  const prev = pending;
  pending = writeOut(line).then(() => prev);
}

/** The words of a log call; an Error gives its message only (I10: stacks only on --verbose, and then by choice). */
function textOf(obj: LogObject): string {
  return obj.args.map((a) => (a instanceof Error ? a.message : typeof a === "string" ? a : String(a))).join(" ");
}

/** The plain reporter off a terminal, the fancy one on it (decided per line: FORCE_COLOR and NO_COLOR as in color.ts). */
export function reporter(opts: { fancy: () => boolean } = { fancy: () => colorOn(process.stderr) }): ConsolaReporter {
  return {
    log(obj) {
      const text = textOf(obj);
      if (obj.type === "log") return writeResult(text);
      const style = opts.fancy() ? FANCY[obj.type] : undefined;
      const line = style ? `\u001b[${style[1]}m${style[0]}\u001b[39m ${obj.type === "debug" ? `\u001b[2m${text}\u001b[22m` : text}` : text;
      process.stderr.write(`${line}\n`);
    },
  };
}

let made: ConsolaInstance | undefined;

/**
 * The instance, made on first use: a capture hook that has nothing to say
 * never builds it (issue 32: consola's constructor was half a millisecond
 * of each run). Throttling is off: consola folds repeated lines into
 * "(repeated N times)", which would change results and tests' output.
 */
function instance(): ConsolaInstance {
  made ??= createConsola({ level: verbosity(), reporters: [reporter()], throttle: 0 });
  return made;
}

/** The CLI's messages: each method, and the level, are the instance's (consola binds its methods to it). */
export const ui: Pick<ConsolaInstance, "log" | "info" | "warn" | "error" | "debug" | "level"> = {
  get log() {
    return instance().log;
  },
  get info() {
    return instance().info;
  },
  get warn() {
    return instance().warn;
  },
  get error() {
    return instance().error;
  },
  get debug() {
    return instance().debug;
  },
  get level() {
    return instance().level;
  },
  set level(level: number) {
    instance().level = level;
  },
};

/** Resolves once every result written so far has reached the OS. */
export function flushed(): Promise<void> {
  return pending;
}
