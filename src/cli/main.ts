/**
 * The CLI dispatcher: finds the command among the words of argv, checks every
 * flag against what that command accepts, and runs it. Commands load lazily,
 * so each pays start-up only for what it uses (DESIGN.md section 10).
 */
import type { ArgsDef, CommandDef } from "citty";
import { sharedArgs } from "./args.ts";
import { checkFlags } from "./check-flags.ts";
import { colorOn } from "./color.ts";
import { parseFlags } from "./flags.ts";
import { reportError } from "./output.ts";
import { writeOut } from "./stdout.ts";
import { UsageError } from "./parse.ts";
import { setVerbosity } from "./verbosity.ts";
import { COMMANDS } from "./command-table.ts";
import { settleJitPolicy } from "./jit.ts";
import { didYouMean } from "./suggest.ts";
import { HIDDEN, type CommandTree, type Loader } from "./tree.ts";
import { commandUsage, groupUsage } from "./usage.ts";

/** `zerodb --version`, `-V` and `help [CMD]` spelled as git and gh spell them, turned into the commands that answer them. */
function normalize(argv: string[]): string[] {
  if (argv[0] === "--version" || argv[0] === "-V") return ["version", ...argv.slice(1)];
  if (argv[0] === "help") return [...argv.slice(1), "--help"];
  return argv;
}

/** Runs the CLI with these arguments; resolves to the exit code. */
export async function runCli(raw: string[]): Promise<number> {
  const argv = normalize(raw);
  const json = argv.includes("--json");
  setVerbosity(argv);
  try {
    const { path, leaf, rest } = locate(argv);
    settleJitPolicy(path[0]);
    const help = rest.includes("--help") || rest.includes("-h");
    if (!leaf) {
      const tree = path.length === 0 ? COMMANDS : lookup(path);
      if (help || (path.length === 0 && rest.length === 0)) {
        await writeOut(await groupUsage(path, tree, colorOn()));
        return 0;
      }
      // One line, as every usage error: the list of commands is one `help` away.
      const subs = Object.keys(tree).filter((k) => !HIDDEN.has([...path, k].join(" ")));
      throw new UsageError(path.length === 0 ? "no command given (see zerodb help)" : `'zerodb ${path.join(" ")}' needs a subcommand: ${subs.join(", ")}`);
    }
    const cmd = await leaf();
    const argsDef = ((await resolve(cmd.args)) ?? {}) as ArgsDef;
    if (help) {
      await writeOut(commandUsage(path, cmd, argsDef, colorOn()));
      return 0;
    }
    checkFlags(rest, argsDef);
    // citty's runCommand is not used at run time: it parses with node:util, whose first load costs a command about
    // 2 ms in the interpreter, and zerodb locates its commands and checks their flags itself (checkFlags).
    // parseFlags gives what citty's ParsedArgs holds, by the same declared names, for every command
    // (test/cli/flags.test.ts); no command declares setup, cleanup, plugins or subcommands.
    const args = parseFlags(rest, argsDef) as Parameters<NonNullable<typeof cmd.run>>[0]["args"];
    await cmd.run?.({ rawArgs: rest, args, cmd, data: undefined });
    // A command may print its result and still fail (zcommand's exitCode).
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if ((err as { name?: string })?.name === "CLIError") return reportError(new UsageError(stripAnsi(String((err as Error).message))), json);
    return reportError(err, json);
  }
}

async function resolve<T>(v: T | (() => T) | (() => Promise<T>) | Promise<T>): Promise<T> {
  return typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;
}

function stripAnsi(s: string): string {
  return s.replace(/\u001b\[[0-9;]*m/g, "");
}

const SHARED_STRING = new Set(
  Object.entries(sharedArgs)
    .filter(([, d]) => d.type === "string")
    .map(([n]) => `--${n}`),
);

/** Walks argv: command words select the command; everything else is its flags. */
function locate(argv: string[]): { path: string[]; leaf?: Loader; rest: string[] } {
  let node: CommandTree | Loader = COMMANDS;
  const path: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (typeof node === "function") {
      rest.push(...argv.slice(i));
      break;
    }
    if (tok.startsWith("-")) {
      rest.push(tok);
      if (SHARED_STRING.has(tok) && i + 1 < argv.length) rest.push(argv[++i]!);
      continue;
    }
    const next: CommandTree | Loader | undefined = Object.hasOwn(node, tok) ? node[tok] : undefined;
    if (!next) {
      const known = Object.keys(node).filter((k) => !HIDDEN.has([...path, k].join(" ")));
      const hint = didYouMean(tok, known, (k) => `'${[...path, k].join(" ")}'`);
      throw new UsageError(`unknown command '${[...path, tok].join(" ")}'${hint || " (see zerodb help)"}`);
    }
    path.push(tok);
    node = next;
  }
  return typeof node === "function" ? { path, leaf: node, rest } : { path, rest };
}

function lookup(path: string[]): CommandTree {
  let node: CommandTree | Loader = COMMANDS;
  for (const p of path) node = (node as CommandTree)[p]!;
  return node as CommandTree;
}

export type { CommandDef };
