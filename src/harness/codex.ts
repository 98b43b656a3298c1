/**
 * Codex CLI: `[mcp_servers.zerodb]` (command, args) and
 * `[mcp_servers.zerodb.env]` in `$CODEX_HOME/config.toml` (default
 * `~/.codex`), edited textually so the user's comments and layout survive.
 * Codex forwards only an allow-list of the environment to servers, so what
 * `zerodb mcp` needs (ZERODB_HOME) travels in the env table (HARNESSES.md).
 */
import { join } from "node:path";
import { codexHome } from "./codex-home.ts";
import { envVar, isDir, onPath } from "./detect.ts";
import { CommandEntry, StringMap } from "./entry-schemas.ts";
import { getPath } from "./json-edit.ts";
import { readToml, type TomlItem, scanToml, tomlKey, tomlString } from "./toml.ts";
import { type Harness, MANAGED_ENV, type Plan, type Registration, SERVER_NAME, type ServerSpec } from "./types.ts";

const BASE = ["mcp_servers", SERVER_NAME];
const ENV = [...BASE, "env"];

const startsWith = (path: string[], prefix: string[]) => prefix.every((p, i) => path[i] === p);
const same = (a: string[], b: string[]) => a.length === b.length && startsWith(a, b);

/** The statements of the file, each with the table it belongs to. */
interface Scanned {
  text: string;
  items: (TomlItem & { table: string[] })[];
  eol: string;
}

function scan(text: string): Scanned {
  let table: string[] = [];
  const items = scanToml(text).map((it) => {
    if (it.kind === "header") table = it.path;
    return { ...it, table };
  });
  return { text, items, eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

/** Where the file states zerodb's entry: nowhere, in the table form zerodb edits, or in a form it does not edit (inline table, dotted keys). */
function form(s: Scanned): "absent" | "table" | "inline" {
  let found = false;
  for (const it of s.items) {
    if (it.kind === "header" && startsWith(it.path, BASE) && !it.array) found = true;
    if (it.kind !== "kv" || !startsWith([...it.table, ...it.path], BASE)) continue;
    found = true;
    // Only the plain table form is edited: a key per line inside [mcp_servers.zerodb] or its env table.
    if (it.path.length !== 1 || !(same(it.table, BASE) || same(it.table, ENV))) return "inline";
  }
  return found ? "table" : "absent";
}

/** zerodb's entry as smol-toml reads it, whatever its form (an empty table when absent). */
function entryOf(text: string): Record<string, unknown> {
  const e = getPath(readToml(text), BASE);
  return e !== null && typeof e === "object" ? (e as Record<string, unknown>) : {};
}

function registration(text: string | undefined): Registration | undefined {
  if (text === undefined) return undefined;
  const r = CommandEntry.safeParse(entryOf(text));
  return r.success ? { command: r.data.command, args: r.data.args, env: r.data.env, managed: r.data.env[MANAGED_ENV] === "1" } : undefined;
}

/** The file's values, with an empty [mcp_servers] read as absent (Codex treats both alike). */
function settings(text: string): unknown {
  const v = readToml(text);
  const servers = v.mcp_servers;
  if (servers !== null && typeof servers === "object" && Object.keys(servers).length === 0) delete v.mcp_servers;
  return v;
}

const line = (k: string, v: string, eol: string) => `${tomlKey(k)} = ${v}${eol}`;
const array = (xs: string[]) => `[${xs.map(tomlString).join(", ")}]`;

function block(spec: ServerSpec, eol: string): string {
  const env = Object.entries(spec.env)
    .map(([k, v]) => line(k, tomlString(v), eol))
    .join("");
  return `[${BASE.join(".")}]${eol}${line("command", tomlString(spec.command), eol)}${line("args", array(spec.args), eol)}${eol}[${ENV.join(".")}]${eol}${env}`;
}

const INLINE = `mcp_servers.${SERVER_NAME} is written inline or with dotted keys; zerodb edits only the [mcp_servers.${SERVER_NAME}] table form: remove it by hand, then run zerodb connect again`;

/** The in-place edits that turn the file's zerodb tables into `spec`. */
function update(s: Scanned, spec: ServerSpec, oldEnv: Record<string, string>): string {
  const edits: { at: number; to: number; text: string }[] = [];
  const tableItems = (path: string[]) => s.items.filter((it) => it.kind === "kv" && same(it.table, path));
  const headerOf = (path: string[]) => s.items.find((it) => it.kind === "header" && same(it.path, path));
  const setIn = (path: string[], key: string, rendered: string) => {
    const kvs = tableItems(path);
    const hit = kvs.findLast((it) => it.path[0] === key);
    if (hit) edits.push({ at: hit.start, to: hit.end, text: line(key, rendered, s.eol) });
    else {
      const after = (kvs.at(-1) ?? headerOf(path))!.end;
      edits.push({ at: after, to: after, text: line(key, rendered, s.eol) });
    }
  };
  setIn(BASE, "command", tomlString(spec.command));
  setIn(BASE, "args", array(spec.args));
  const kept = Object.entries(oldEnv).filter(([k]) => !k.startsWith("ZERODB_"));
  const env: Record<string, string> = { ...Object.fromEntries(kept), ...spec.env };
  const inlineEnv = tableItems(BASE).find((it) => it.path[0] === "env");
  if (inlineEnv) {
    const pairs = Object.entries(env).map(([k, v]) => `${tomlKey(k)} = ${tomlString(v)}`);
    edits.push({ at: inlineEnv.start, to: inlineEnv.end, text: line("env", `{ ${pairs.join(", ")} }`, s.eol) });
  } else if (headerOf(ENV)) {
    for (const [k, v] of Object.entries(spec.env)) setIn(ENV, k, tomlString(v));
    for (const it of tableItems(ENV)) if (it.path[0]!.startsWith("ZERODB_") && !(it.path[0]! in env)) edits.push({ at: it.start, to: it.end, text: "" });
  } else {
    const after = (tableItems(BASE).at(-1) ?? headerOf(BASE))!.end;
    const lines = Object.entries(env)
      .map(([k, v]) => line(k, tomlString(v), s.eol))
      .join("");
    edits.push({ at: after, to: after, text: `${s.eol}[${ENV.join(".")}]${s.eol}${lines}` });
  }
  let out = s.text;
  const order = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.at - a.e.at || b.i - a.i);
  for (const { e } of order) out = out.slice(0, e.at) + e.text + out.slice(e.to);
  return out;
}

/** Removes every [mcp_servers.zerodb...] table, keeping comments that introduce the next table. */
function remove(s: Scanned): string {
  const ranges: [number, number][] = [];
  const items = s.items;
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if (it.kind !== "header" || !startsWith(it.path, BASE)) continue;
    let j = i + 1;
    let end = it.end;
    while (j < items.length && items[j]!.kind !== "header") {
      if (items[j]!.kind === "kv") end = items[j]!.end;
      j++;
    }
    // Blank lines after the last pair go too, up to a comment or the next header.
    for (let k = items.findIndex((x) => x.start === end); k >= 0 && k < j && items[k]!.kind === "blank"; k++) end = items[k]!.end;
    ranges.push([it.start, end]);
  }
  // Adjacent tables (zerodb's and its env) go as one range, so the end-of-file rule sees them whole.
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged.at(-1);
    if (last && last[1] >= r[0]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  let out = s.text;
  for (const [a, b] of merged.reverse()) {
    let from = a;
    // At the end of the file, the blank line that separated the tables goes too.
    if (b === out.length && out.slice(0, a).endsWith(s.eol + s.eol)) from = a - s.eol.length;
    out = out.slice(0, from) + out.slice(b);
  }
  return out;
}

/** The Codex harness. */
export const codex: Harness = {
  name: "codex",
  label: "Codex",
  configPath: (ctx) => join(codexHome(ctx), "config.toml"),
  installed: (ctx) => isDir(codexHome(ctx)) || onPath("codex", ctx),
  blocked(ctx) {
    const set = envVar(ctx, "CODEX_HOME");
    return set && !isDir(set) ? `CODEX_HOME (${set}) does not exist and Codex requires it: create it or unset CODEX_HOME` : undefined;
  },
  registration,
  planAdd(text, spec): Plan {
    if (text === undefined || text.trim() === "") return { change: "added", text: (text ?? "") + block(spec, "\n") };
    const s = scan(text);
    const where = form(s);
    if (where === "absent") {
      const sep = text.endsWith("\n") ? s.eol : s.eol + s.eol;
      return { change: "added", text: text + sep + block(spec, s.eol) };
    }
    if (where === "inline") throw new SyntaxError(INLINE);
    const entry = entryOf(text);
    const env = StringMap.parse(entry.env);
    const desiredEnv = { ...Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith("ZERODB_"))), ...spec.env };
    const same = entry.command === spec.command && Bun.deepEquals(entry.args, spec.args) && Bun.deepEquals(env, desiredEnv);
    if (same) return { change: "unchanged" };
    return { change: "updated", text: update(s, spec, env) };
  },
  planRemove(text): Plan {
    if (text === undefined) return { change: "absent" };
    const s = scan(text);
    const where = form(s);
    if (where === "absent") return { change: "absent" };
    if (!registration(text)?.managed)
      return { change: "foreign", detail: `its [mcp_servers.${SERVER_NAME}] was not written by zerodb connect (no ${MANAGED_ENV} marker); left in place` };
    if (where === "inline") throw new SyntaxError(INLINE);
    return { change: "removed", text: remove(s) };
  },
  sameSettings(a, b) {
    try {
      return Bun.deepEquals(settings(a), settings(b), true);
    } catch {
      return false;
    }
  },
};

export { codexHome };
