/**
 * The JSON config format most harnesses share: a top-level map from server
 * names to entries (`mcpServers`, VS Code's `servers`, opencode's `mcp`).
 * Only the `zerodb` member is ever touched; the text is edited in place.
 */
import { CommandEntry, objectWith } from "./entry-schemas.ts";
import { editJson, getPath } from "./json-edit.ts";
import { parseJson, toValue } from "./jsonc.ts";
import { MANAGED_ENV, type Harness, type Plan, type Registration, SERVER_NAME, type ServerSpec } from "./types.ts";
import { isObject } from "../util/json.ts";

/** How one harness spells its server map and entries. */
export interface JsonServersShape {
  /** The top-level key holding the servers. */
  container: string;
  /** Whether the harness reads comments (JSONC); a strict file with comments is malformed. */
  jsonc: boolean;
  /** zerodb's entry. */
  entry(spec: ServerSpec): Record<string, unknown>;
  /** Reads an entry back, or undefined when it is not a stdio server entry. */
  read(entry: Record<string, unknown>): Omit<Registration, "managed"> | undefined;
}

type Format = Pick<Harness, "planAdd" | "planRemove" | "registration" | "sameSettings">;

/** The usual `{command, args, env}` entry, with extra fixed keys (`type: "stdio"`). */
export function commandArgsShape(opts: { container: string; jsonc: boolean; extra?: Record<string, unknown> }): JsonServersShape {
  return {
    container: opts.container,
    jsonc: opts.jsonc,
    entry: (s) => ({ ...opts.extra, command: s.command, args: s.args, env: s.env }),
    read: (e) => {
      const r = CommandEntry.safeParse(e);
      return r.success ? { command: r.data.command, args: r.data.args, env: r.data.env } : undefined;
    },
  };
}

/**
 * Merges zerodb's entry over an existing one: zerodb's keys win, keys the
 * user added (a timeout, trust) stay, and env variables zerodb no longer sets
 * (ZERODB_*) are dropped while the user's own stay.
 */
function merge(existing: Record<string, unknown>, desired: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...existing };
  for (const [k, v] of Object.entries(desired)) {
    const old = existing[k];
    if (isObject(v) && isObject(old)) {
      const kept = Object.fromEntries(Object.entries(old).filter(([name]) => !name.startsWith("ZERODB_")));
      out[k] = { ...kept, ...v };
    } else out[k] = v;
  }
  return out;
}

/** The plan/read functions of a harness whose config is a JSON server map. */
export function jsonServersFormat(shape: JsonServersShape): Format {
  const path = [shape.container, SERVER_NAME];
  const opts = { jsonc: shape.jsonc };

  const file = objectWith(shape.container);
  const parse = (text: string): Record<string, unknown> => {
    const value = toValue(parseJson(text, opts).root);
    if (!isObject(value)) throw new SyntaxError("the top level is not a JSON object");
    if (!file.safeParse(value).success) throw new SyntaxError(`"${shape.container}" is not a JSON object`);
    return value;
  };

  const registration = (text: string | undefined): Registration | undefined => {
    if (text === undefined || text.trim() === "") return undefined;
    const entry = getPath(parse(text), path);
    if (!isObject(entry)) return undefined;
    const r = shape.read(entry);
    return r && { ...r, managed: r.env[MANAGED_ENV] === "1" };
  };

  return {
    registration,
    planAdd(text, spec): Plan {
      const desired = shape.entry(spec);
      if (text === undefined || text.trim() === "") return { change: "added", text: editJson("", path, desired, opts) };
      const existing = getPath(parse(text), path);
      if (existing === undefined) return { change: "added", text: editJson(text, path, desired, opts) };
      const merged = isObject(existing) ? merge(existing, desired) : desired;
      if (Bun.deepEquals(existing, merged, true)) return { change: "unchanged" };
      return { change: "updated", text: editJson(text, path, merged, opts) };
    },
    planRemove(text): Plan {
      if (text === undefined || text.trim() === "") return { change: "absent" };
      const existing = getPath(parse(text), path);
      if (existing === undefined) return { change: "absent" };
      if (!registration(text)?.managed) {
        return { change: "foreign", detail: `its "${SERVER_NAME}" entry was not written by zerodb connect (no ${MANAGED_ENV} marker); left in place` };
      }
      return { change: "removed", text: editJson(text, path, undefined, opts) };
    },
    sameSettings: (a, b) => sameJsonSettings(a, b, { jsonc: shape.jsonc, container: shape.container }),
  };
}

/**
 * True when two JSON texts hold the same settings, reading a blank text as
 * `{}` and an empty `container` object as absent (harnesses treat both alike).
 */
export function sameJsonSettings(a: string, b: string, opts: { jsonc: boolean; container: string }): boolean {
  const norm = (text: string): unknown => {
    if (text.trim() === "") return {};
    const v = toValue(parseJson(text, opts).root);
    if (isObject(v) && isObject(v[opts.container]) && Object.keys(v[opts.container] as object).length === 0) delete v[opts.container];
    return v;
  };
  try {
    return Bun.deepEquals(norm(a), norm(b), true);
  } catch {
    return false;
  }
}
