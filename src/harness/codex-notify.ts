/**
 * Codex's capture hook: the top-level `notify` program in
 * `$CODEX_HOME/config.toml`, which Codex runs after every turn with one JSON
 * argument naming the thread and its cwd (HARNESSES.md "Codex CLI"). Chosen
 * over `hooks.json` because notify runs without Codex's hook trust state
 * (a `[hooks.state]` hash per handler in config.toml, which changes whenever
 * the command does) and is one statement to add and remove. Codex runs one
 * notify program: a notify that is not zerodb's is left alone and reported.
 * The statement is inserted and removed as one line, so disconnect gives back
 * the file's bytes.
 */
import { codex } from "./codex.ts";
import type { FileJob } from "./run-jobs.ts";
import type { SelfCommand } from "./self.ts";
import { readToml, scanToml, tomlString } from "./toml.ts";
import type { HarnessContext, Plan } from "./types.ts";
import { codexHome } from "./codex.ts";
import { join } from "node:path";

/** The words zerodb's notify command ends with. */
const SUFFIX = ["hook", "codex"];

/** The notify argv running this zerodb's Codex hook with `home`. */
export function codexNotifyCommand(self: SelfCommand, home: string): string[] {
  return [self.command, ...self.prefix, "--home", home, ...SUFFIX];
}

/** True when a notify value is zerodb's. */
export function isZerodbNotify(v: unknown): v is string[] {
  return Array.isArray(v) && v.length > SUFFIX.length && v.every((w) => typeof w === "string") && SUFFIX.every((w, i) => v[v.length - SUFFIX.length + i] === w);
}

/** The top-level `notify` statement: its span, or undefined. */
function notifyItem(text: string) {
  let table = false;
  for (const it of scanToml(text)) {
    if (it.kind === "header") table = true;
    if (!table && it.kind === "kv" && it.path.length === 1 && it.path[0] === "notify") return it;
  }
  return undefined;
}

/** Where a new top-level statement goes: before the first table (and the comments right above it), or at the end. */
function insertAt(text: string): number {
  const items = scanToml(text);
  const h = items.findIndex((it) => it.kind === "header");
  if (h < 0) return text === "" || text.endsWith("\n") ? text.length : text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let i = h;
  while (i > 0 && items[i - 1]!.kind === "comment") i--;
  return items[i]!.start;
}

/** Plans installing `argv` as notify. Throws on a malformed file. */
export function planNotify(text: string | undefined, argv: string[]): Plan {
  const eol = text?.includes("\r\n") ? "\r\n" : "\n";
  const line = `notify = [${argv.map(tomlString).join(", ")}]${eol}`;
  if (text === undefined || text.trim() === "") return { change: "added", text: (text ?? "") + line };
  const current = readToml(text).notify;
  const item = notifyItem(text);
  if (current !== undefined && !isZerodbNotify(current))
    return {
      change: "foreign",
      detail: "config.toml already has a notify program that is not zerodb's (Codex runs only one): left in place; run `zerodb capture sync` to capture Codex",
    };
  if (current !== undefined && item === undefined) throw new SyntaxError("notify is not a plain top-level statement; zerodb edits only that form");
  if (item) {
    if (Bun.deepEquals(current, argv)) return { change: "unchanged" };
    return { change: "updated", text: text.slice(0, item.start) + line + text.slice(item.end) };
  }
  const at = insertAt(text);
  return { change: "added", text: text.slice(0, at) + line + text.slice(at) };
}

/** Plans removing zerodb's notify. Throws on a malformed file. */
export function planRemoveNotify(text: string | undefined): Plan {
  if (text === undefined || text.trim() === "") return { change: "absent" };
  const current = readToml(text).notify;
  if (current === undefined) return { change: "absent" };
  if (!isZerodbNotify(current)) return { change: "foreign", detail: "its notify program is not zerodb's; left in place" };
  const item = notifyItem(text);
  if (!item) throw new SyntaxError("notify is not a plain top-level statement; zerodb edits only that form");
  return { change: "removed", text: text.slice(0, item.start) + text.slice(item.end) };
}

/** Installs the notify running `argv`, or (undefined) removes zerodb's. */
export function codexNotifyJob(ctx: HarnessContext, argv: string[] | undefined): FileJob {
  return {
    target: "codex",
    what: "hooks",
    label: "Codex notify hook",
    path: join(codexHome(ctx), "config.toml"),
    plan: (text) => (argv !== undefined ? planNotify(text, argv) : planRemoveNotify(text)),
    sameSettings: (a, b) => codex.sameSettings(a, b),
    // config.toml is also the MCP job's file: connect runs this job after it, disconnect before it.
    backupSuffix: ".zerodb-notify-backup",
  };
}
