/**
 * Help text, rendered here rather than by citty: plain text into pipes and
 * files (citty colours whenever NO_COLOR is unset), hidden aliases and
 * commands left out, and one line per command in the top-level help.
 */
import type { ArgDef, ArgsDef, CommandDef } from "citty";
import { sharedArgs } from "./args.ts";
import { bold } from "./color.ts";
import { type CommandTree, HIDDEN, type Loader } from "./tree.ts";

/** A flag's aliases people should see: one-letter ones; longer ones are old spellings kept for scripts. */
function shownAliases(def: ArgDef): string[] {
  const all = [(def as { alias?: string | string[] }).alias ?? []].flat();
  return all.filter((a) => a.length === 1);
}

function flagLabel(name: string, def: ArgDef): string {
  const hint = def.type === "string" || def.type === "enum" ? ` <${(def as { valueHint?: string }).valueHint ?? name}>` : "";
  return [...shownAliases(def).map((a) => `-${a}`), `--${name}`].join(", ") + hint;
}

function flagNote(def: ArgDef): string {
  const notes: string[] = [];
  if (def.type !== "positional" && def.required === true) notes.push("(required)");
  if ((def as { repeat?: boolean }).repeat === true) notes.push("(repeatable)");
  return [def.description ?? "", ...notes].filter(Boolean).join(" ");
}

function columns(rows: [string, string][]): string[] {
  const width = Math.min(34, Math.max(0, ...rows.map(([l]) => l.length)));
  return rows.map(([l, r]) => (r ? `  ${l.padEnd(width)}  ${r}` : `  ${l}`));
}

/** The help of one command: usage line, arguments, its flags, then the shared flags. */
// biome-ignore lint/suspicious/noExplicitAny: each command's args type differs, and citty's CommandDef is invariant in it
export function commandUsage(path: string[], cmd: CommandDef<any>, argsDef: ArgsDef, color: boolean): string {
  const name = ["zerodb", ...path].join(" ");
  const own: [string, string][] = [];
  const shared: [string, string][] = [];
  const positional: [string, string][] = [];
  const usage: string[] = [name];
  for (const [argName, def] of Object.entries(argsDef)) {
    if (def.type === "positional") {
      const many = (def as { variadic?: boolean }).variadic === true ? "..." : "";
      const label = `${argName.toUpperCase()}${many}`;
      usage.push(def.required === false ? `[${label}]` : `<${label}>`);
      positional.push([label, def.description ?? ""]);
      continue;
    }
    // A flag on by default is shown as --[no-]name: the negation is what people type.
    const label = def.type === "boolean" && def.default === true ? `--[no-]${argName}` : flagLabel(argName, def);
    (argName in sharedArgs ? shared : own).push([label, flagNote(def)]);
    if (def.required === true) usage.splice(1, 0, flagLabel(argName, def));
  }
  const meta = (cmd.meta ?? {}) as { description?: string };
  const lines = [`${meta.description ?? ""}`, "", `${bold("Usage:", color)} ${usage.join(" ")}${own.length ? " [flags]" : ""}`];
  if (positional.length) lines.push("", bold("Arguments:", color), ...columns(positional));
  if (own.length) lines.push("", bold("Flags:", color), ...columns(own));
  lines.push("", bold("Global flags:", color), ...columns([...shared, ["-h, --help", "show this help"]]));
  return `${lines.join("\n")}\n`;
}

/** Every visible command under `tree`, as [words, loader]. */
export function leaves(tree: CommandTree, path: string[] = []): [string[], Loader][] {
  const out: [string[], Loader][] = [];
  for (const [key, node] of Object.entries(tree)) {
    const p = [...path, key];
    if (HIDDEN.has(p.join(" "))) continue;
    if (typeof node === "function") out.push([p, node]);
    else out.push(...leaves(node, p));
  }
  return out;
}

/** The help of the program or of a group: every command with its one-line description. */
export async function groupUsage(path: string[], tree: CommandTree, color: boolean): Promise<string> {
  const name = ["zerodb", ...path].join(" ");
  const rows = await Promise.all(
    leaves(tree, path).map(async ([p, load]): Promise<[string, string]> => {
      const meta = ((await load()).meta ?? {}) as { description?: string };
      return [p.join(" "), meta.description ?? ""];
    }),
  );
  const lines = [
    path.length === 0 ? "zerodb: a local-first memory database for AI agents" : `zerodb ${path.join(" ")}: its subcommands`,
    "",
    `${bold("Usage:", color)} ${name} <command> [flags]`,
    "",
    bold("Commands:", color),
    ...columns(rows),
    "",
    `Run '${path.length === 0 ? "zerodb help <command>" : `${name} <command> --help`}' for a command's flags${path.length === 0 ? "; 'zerodb --version' for the version" : ""}.`,
  ];
  return `${lines.join("\n")}\n`;
}
