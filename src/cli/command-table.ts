/**
 * Every CLI command, loaded lazily: one import per command file, so a command
 * pays only for the modules it uses. One line per command; keep it sorted by
 * concept, not alphabet.
 */
import type { CommandDef } from "citty";
import type { CommandTree } from "./tree.ts";

// biome-ignore lint/suspicious/noExplicitAny: each command's args type differs, and citty's CommandDef is invariant in it
const load = <M extends { default: CommandDef<any> }>(p: Promise<M>) => p.then((m) => m.default);

/** Every command, by the words that name it. */
export const COMMANDS: CommandTree = {
  // the store
  append: () => load(import("./commands/append.ts")),
  read: () => load(import("./commands/read.ts")),
  sessions: () => load(import("./commands/sessions.ts")),
  search: () => load(import("./commands/search.ts")),
  fact: {
    set: () => load(import("./commands/fact-set.ts")),
    get: () => load(import("./commands/fact-get.ts")),
    list: () => load(import("./commands/fact-list.ts")),
  },
  forget: () => load(import("./commands/forget.ts")),
  diff: () => load(import("./commands/diff.ts")),
  object: {
    put: () => load(import("./commands/object-put.ts")),
    get: () => load(import("./commands/object-get.ts")),
    list: () => load(import("./commands/object-list.ts")),
  },
  link: { add: () => load(import("./commands/link-add.ts")) },
  sync: () => load(import("./commands/sync.ts")),
  stats: () => load(import("./commands/stats.ts")),
  export: () => load(import("./commands/export.ts")),
  import: () => load(import("./commands/import.ts")),
  backup: () => load(import("./commands/backup.ts")),
  restore: () => load(import("./commands/restore.ts")),
  version: () => load(import("./commands/version.ts")),
  // Handed the table rather than importing it: the table already imports every command.
  completion: () => import("./commands/completion.ts").then((m) => m.default(COMMANDS)),
  // local harnesses (DESIGN.md 7.1)
  connect: () => load(import("./commands/connect.ts")),
  disconnect: () => load(import("./commands/disconnect.ts")),
  doctor: () => load(import("./commands/doctor.ts")),
  // doors
  mcp: () => load(import("./commands/mcp.ts")),
  hook: {
    "claude-code": () => load(import("./commands/hook-claude-code.ts")),
    codex: () => load(import("./commands/hook-codex.ts")),
    gemini: () => load(import("./commands/hook-gemini.ts")),
    opencode: () => load(import("./commands/hook-opencode.ts")),
  },
  capture: {
    sync: () => load(import("./commands/capture-sync.ts")),
    status: () => load(import("./commands/capture-status.ts")),
  },
  serve: () => load(import("./commands/serve.ts")),
  ui: () => load(import("./commands/ui.ts")),
  token: {
    create: () => load(import("./commands/token-create.ts")),
    list: () => load(import("./commands/token-list.ts")),
    revoke: () => load(import("./commands/token-revoke.ts")),
  },
};
