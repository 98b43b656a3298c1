/**
 * The Claude Code capture hooks of DESIGN.md 7.2 in `<claude config
 * dir>/settings.json`: one matcher group per event whose handler runs
 * `<abs zerodb> hook claude-code`. zerodb's handlers are recognised by that
 * command ending; every other hook, group and setting is left as it was.
 */
import { objectWith } from "./entry-schemas.ts";
import { editJson, getPath, type PathStep } from "./json-edit.ts";
import { parseJson, toValue } from "./jsonc.ts";
import type { Plan } from "./types.ts";
import { isObject } from "../util/json.ts";

/**
 * The events and each handler's timeout in seconds. All SessionEnd hooks
 * share a 1.5 s budget unless a hook sets its own timeout; UserPromptSubmit
 * is capped at 30 s (HARNESSES.md, "Claude Code hooks").
 */
export const HOOK_EVENTS = [
  { event: "SessionStart", timeout: 10 },
  { event: "UserPromptSubmit", timeout: 10 },
  { event: "Stop", timeout: 30 },
  { event: "SubagentStop", timeout: 30 },
  { event: "PreCompact", timeout: 30 },
  { event: "SessionEnd", timeout: 10 },
] as const;

/** The words every zerodb hook command ends with. */
export const HOOK_SUFFIX = "hook claude-code";

/** Which hooks a settings file of the Claude Code shape gets: the events with their timeouts, and how zerodb's command ends. */
export interface HookSpec {
  events: readonly { event: string; timeout: number }[];
  suffix: string;
  /** The file may hold comments (Gemini CLI's settings.json is JSONC; Claude Code's is strict JSON). */
  jsonc?: boolean;
}

/** Claude Code's (the default of every function here). */
export const CLAUDE_HOOKS: HookSpec = { events: HOOK_EVENTS, suffix: HOOK_SUFFIX };

/** True when a hook command is zerodb's. */
export function isZerodbHook(command: unknown, suffix = HOOK_SUFFIX): command is string {
  return typeof command === "string" && command.trimEnd().endsWith(` ${suffix}`);
}

const JSON_OPTS = { jsonc: false };

const SettingsFile = objectWith("hooks");

function parse(text: string, opts = JSON_OPTS): Record<string, unknown> {
  const value = toValue(parseJson(text, opts).root);
  if (!isObject(value)) throw new SyntaxError("the top level is not a JSON object");
  if (!SettingsFile.safeParse(value).success) throw new SyntaxError('"hooks" is not a JSON object');
  return value;
}

/** zerodb's handlers in a settings file: where each is and what it runs. */
export function findZerodbHooks(value: unknown, suffix = HOOK_SUFFIX): { event: string; group: number; handler: number; command: string; timeout?: unknown }[] {
  const hooks = getPath(value, ["hooks"]);
  const out: ReturnType<typeof findZerodbHooks> = [];
  if (!isObject(hooks)) return out;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((g, gi) => {
      const handlers = isObject(g) ? g.hooks : undefined;
      if (!Array.isArray(handlers)) return;
      handlers.forEach((h, hi) => {
        if (isObject(h) && isZerodbHook(h.command, suffix)) out.push({ event, group: gi, handler: hi, command: h.command, timeout: h.timeout });
      });
    });
  }
  return out;
}

/** zerodb's hooks as a settings file holds them (doctor). Throws on a malformed file. */
export function readHooks(text: string | undefined, spec: HookSpec = CLAUDE_HOOKS): ReturnType<typeof findZerodbHooks> {
  return text === undefined || text.trim() === "" ? [] : findZerodbHooks(parse(text, { jsonc: spec.jsonc === true }), spec.suffix);
}

/** Plans installing (or refreshing) the hooks with `command` as the handler. Throws on a malformed file. */
export function planHooks(text: string | undefined, command: string, spec: HookSpec = CLAUDE_HOOKS): Plan {
  const o = { jsonc: spec.jsonc === true };
  let out = text ?? "";
  const before = out.trim() === "" ? {} : parse(out, o);
  const existing = findZerodbHooks(before, spec.suffix);
  for (const { event, timeout } of spec.events) {
    const desired = { type: "command", command, timeout };
    const ours = findZerodbHooks(out.trim() === "" ? {} : parse(out, o), spec.suffix).filter((h) => h.event === event);
    // Stale duplicates (an older path) would run twice: keep the first, drop the rest.
    for (const dup of ours.slice(1).reverse()) out = removeHandler(out, dup, o);
    const first = ours[0];
    if (first) {
      const path: PathStep[] = ["hooks", event, first.group, "hooks", first.handler];
      const handler = getPath(parse(out, o), path) as Record<string, unknown>;
      const merged = { ...handler, ...desired };
      if (!Bun.deepEquals(handler, merged, true)) out = editJson(out, path, merged, o);
    } else {
      const groups = getPath(out.trim() === "" ? {} : parse(out, o), ["hooks", event]);
      if (groups !== undefined && !Array.isArray(groups)) throw new SyntaxError(`"hooks.${event}" is not a JSON array`);
      out = editJson(out, ["hooks", event, Array.isArray(groups) ? groups.length : 0], { hooks: [desired] }, o);
    }
  }
  if (out === (text ?? "")) return { change: "unchanged" };
  return { change: existing.length === 0 ? "added" : "updated", text: out };
}

/** Plans removing every zerodb handler (and groups, events and `hooks` it leaves empty). Throws on a malformed file. */
export function planRemoveHooks(text: string | undefined, spec: HookSpec = CLAUDE_HOOKS): Plan {
  const o = { jsonc: spec.jsonc === true };
  if (text === undefined || text.trim() === "") return { change: "absent" };
  const found = findZerodbHooks(parse(text, o), spec.suffix);
  if (found.length === 0) return { change: "absent" };
  let out = text;
  // From the last to the first, so earlier indexes stay valid.
  for (const h of found.reverse()) out = removeHandler(out, h, o);
  const hooks = getPath(parse(out, o), ["hooks"]);
  if (isObject(hooks) && Object.keys(hooks).length === 0) out = editJson(out, ["hooks"], undefined, o);
  return { change: "removed", text: out };
}

/** Removes one handler; its group when nothing else is left in it; the event when it has no group left. */
function removeHandler(text: string, h: { event: string; group: number; handler: number }, o = JSON_OPTS): string {
  const value = parse(text, o);
  const handlers = getPath(value, ["hooks", h.event, h.group, "hooks"]) as unknown[];
  const groups = getPath(value, ["hooks", h.event]) as unknown[];
  if (handlers.length > 1) return editJson(text, ["hooks", h.event, h.group, "hooks", h.handler], undefined, o);
  if (groups.length > 1) return editJson(text, ["hooks", h.event, h.group], undefined, o);
  return editJson(text, ["hooks", h.event], undefined, o);
}
