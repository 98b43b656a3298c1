/**
 * Parsing a command's flags without citty, for every command: a hook must
 * exit in milliseconds and a CLI command should start as fast, and loading
 * citty (with node:util, which it parses with) and its per-flag case
 * conversions cost about 2 ms of a run. Gives what citty's parseArgs gives
 * for the argument kinds zerodb declares (string, boolean, positional;
 * aliases, `--no-x`, `--x=v`, `--`), checked against it for every command's
 * own flags by test/cli/flags.test.ts. The flags were already checked by
 * checkFlags (main.ts), so nothing here refuses anything. A string flag
 * declared `repeat: true` (citty has none) gives every value, in order, as an
 * array; zcommand (command.ts) takes such flags from here for every command.
 */
import type { ArgsDef } from "citty";

/** The parsed flags: each declared argument under its declared name (and a camelCase spelling), positionals in `_`. */
export type ParsedFlags = Record<string, unknown> & { _: string[] };

/** The flags of `rest` by the command's declared arguments, as citty's parseArgs gives them. */
export function parseFlags(rest: readonly string[], argsDef: ArgsDef): ParsedFlags {
  /** Every accepted spelling of a flag: its name, kebab and camel forms, aliases. */
  const spellings = new Map<string, { name: string; boolean: boolean; repeat: boolean }>();
  const positionals: { name: string; default?: unknown }[] = [];
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type === "positional") {
      positionals.push({ name, default: def.default });
      continue;
    }
    const aliases = [(def as { alias?: string | string[] }).alias ?? []].flat();
    const repeat = (def as { repeat?: boolean }).repeat === true;
    for (const s of [name, kebab(name), camel(name), ...aliases]) spellings.set(s, { name, boolean: def.type === "boolean", repeat });
  }
  const out: ParsedFlags = { _: [] };
  // `--no-x` wins over `--x` wherever it stands, as in citty.
  const negated: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const tok = rest[i]!;
    if (tok === "--") {
      out._.push(...rest.slice(i + 1));
      break;
    }
    if (!tok.startsWith("-") || tok === "-") {
      out._.push(tok);
      continue;
    }
    const [name, inline] = tok.replace(/^--?/, "").split(/=(.*)/s, 2) as [string, string | undefined];
    const flag = spellings.get(name);
    if (flag?.boolean) out[flag.name] = inline === undefined ? true : inline !== "false";
    else if (flag?.repeat) out[flag.name] = [...((out[flag.name] as string[] | undefined) ?? []), inline ?? rest[++i]];
    else if (flag) out[flag.name] = inline ?? rest[++i];
    else if (name.startsWith("no-") && spellings.get(name.slice(3))?.boolean) negated.push(spellings.get(name.slice(3))!.name);
  }
  for (const name of negated) out[name] = false;
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type !== "positional" && out[name] === undefined && def.default !== undefined) out[name] = def.default;
  }
  positionals.forEach((p, k) => {
    const v = out._[k] ?? p.default;
    if (v !== undefined) out[p.name] = v;
  });
  for (const name of Object.keys(argsDef)) if (out[name] !== undefined && camel(name) !== name) out[camel(name)] = out[name];
  return out;
}

function kebab(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function camel(s: string): string {
  return s.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}
