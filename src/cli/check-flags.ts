/**
 * Checking a command's flags before it runs (main.ts): every flag the
 * command declares, by name, kebab-case spelling or alias; a mistyped one
 * refused with the nearest declared name (`unknown flag --sesion; did you
 * mean --session?`).
 */
import type { ArgsDef } from "citty";
import { UsageError } from "./parse.ts";
import { didYouMean } from "./suggest.ts";

/**
 * Refuses unknown flags, flags missing their value, missing required flags and
 * arguments, and extra positional arguments, each naming the field (I6).
 */
export function checkFlags(rest: string[], argsDef: ArgsDef): void {
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
        // The parser takes no flag as a value (`--idem-key --no-json` leaves --idem-key without one): write `--name=-x` for a value that starts with a dash.
        const next = rest[i + 1];
        if (next === undefined || (next.startsWith("-") && next !== "-")) throw new UsageError(`--${name} needs a value`, name);
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
