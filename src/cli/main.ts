/**
 * The CLI dispatcher: finds the command among the words of argv, checks every
 * flag against what that command accepts, and runs it. Commands load lazily,
 * so each pays start-up only for what it uses (DESIGN.md section 10).
 */
import type { ArgsDef, CommandDef } from "citty";
import { sharedArgs } from "./args.ts";
import { colorOn } from "./color.ts";
import { parseFlags } from "./flags.ts";
import { reportError, writeOut } from "./output.ts";
import { UsageError } from "./parse.ts";
import { setVerbosity } from "./verbosity.ts";
import { COMMANDS, HIDDEN, type CommandTree, type Loader } from "./commands.ts";
import { didYouMean } from "./suggest.ts";
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
    if (path[0] === "hook") {
      // A capture hook skips citty (and node:util, which it loads): about 2 ms of a run that must be short (flags.ts).
      // parseFlags gives what citty's ParsedArgs holds, by the same declared names (test/cli/flags.test.ts).
      const args = parseFlags(rest, argsDef) as Parameters<NonNullable<typeof cmd.run>>[0]["args"];
      await cmd.run?.({ rawArgs: rest, args, cmd, data: undefined });
    } else {
      const { runCommand } = await import("citty");
      await runCommand(cmd, { rawArgs: rest });
    }
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
      const hint = didYouMean(tok, known, (k) => [...path, k].join(" "));
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

/**
 * Refuses unknown flags, flags missing their value, missing required flags and
 * arguments, and extra positional arguments, each naming the field (I6).
 */
function checkFlags(rest: string[], argsDef: ArgsDef): void {
  const strings = new Map<string, string>();
  const booleans = new Set<string>();
  const positionals: { name: string; required: boolean }[] = [];
  // A positional marked `variadic` takes every remaining word (`zerodb search deploy key`).
  let variadic = false;
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type === "positional") {
      positionals.push({ name, required: def.required === true });
      if ((def as { variadic?: boolean }).variadic === true) variadic = true;
      continue;
    }
    const names = [name, kebab(name), ...[(def as { alias?: string | string[] }).alias ?? []].flat()];
    for (const n of names) def.type === "boolean" ? booleans.add(n) : strings.set(n, name);
  }
  const given = new Set<string>();
  const extra: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const tok = rest[i]!;
    if (tok === "--") {
      extra.push(...rest.slice(i + 1));
      break;
    }
    if (!tok.startsWith("-") || tok === "-") {
      extra.push(tok);
      continue;
    }
    const body = tok.replace(/^--?/, "");
    const [name, inline] = body.split(/=(.*)/s, 2) as [string, string | undefined];
    if (strings.has(name)) {
      if (inline === undefined) {
        if (i + 1 >= rest.length) throw new UsageError(`--${name} needs a value`, name);
        i++;
      }
      given.add(strings.get(name)!);
      continue;
    }
    if (booleans.has(name) || (name.startsWith("no-") && booleans.has(name.slice(3)))) continue;
    // A typo of an old spelling suggests the name help shows: --prefx -> --session-prefix.
    const known = new Map<string, string>();
    for (const [n, d] of Object.entries(argsDef)) {
      if (d.type === "positional") continue;
      for (const a of [n, ...[(d as { alias?: string | string[] }).alias ?? []].flat()]) known.set(a, kebab(n));
    }
    throw new UsageError(`unknown flag ${tok.split("=")[0]}${didYouMean(name, known.keys(), (n) => `--${known.get(n)}`) || " (see --help)"}`, name);
  }
  if (extra.length > positionals.length && !variadic) {
    const first = JSON.stringify(extra[positionals.length]!.slice(0, 64));
    throw new UsageError(`too many arguments: ${first} is one more than this command takes (${positionals.length})`, "arguments");
  }
  // Checked here rather than by citty, whose message names no field.
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type !== "positional" && def.required === true && !given.has(name)) throw new UsageError(`--${kebab(name)} is required`, kebab(name));
  }
  const missing = positionals.find((p, i) => p.required && i >= extra.length);
  if (missing) throw new UsageError(`${missing.name.toUpperCase()} is required (see --help)`, missing.name);
}

function kebab(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

export type { CommandDef };
