/**
 * opencode as the capture tests see it: `opencode.db` with the tables and
 * JSON shapes opencode 1.18.33 writes (copied from a database a real
 * `opencode run` made offline: session, message and part, `data` JSON
 * without the row's own ids), ids made the way opencode makes them
 * (`<prefix>_` + 12 hex of (ms × 4096 + counter) mod 2^48 + 14 random
 * base62), WAL mode as opencode opens it; the hook run as the plugin runs it,
 * and `capture sync` with only opencode's data to read.
 */
import { Database } from "bun:sqlite";
import { expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ZERODB } from "../helpers.ts";
import { keysOf, runJson, type StoredTurn } from "./_fixtures.ts";

/** opencode's DDL for the tables capture reads (from a 1.18.33 database). */
const SCHEMA = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, icon_url text, icon_url_override text, icon_color text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_initialized integer, sandboxes text NOT NULL, commands text);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL,
  path text, title text NOT NULL, version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer, summary_files integer,
  summary_diffs text, metadata text, cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL, tokens_cache_write integer DEFAULT 0 NOT NULL,
  revert text, permission text, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer,
  time_archived integer, CONSTRAINT fk_session_project_id_project_id_fk FOREIGN KEY (project_id) REFERENCES project(id) ON DELETE CASCADE);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL,
  CONSTRAINT fk_message_session_id_session_id_fk FOREIGN KEY (session_id) REFERENCES session(id) ON DELETE CASCADE);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL,
  data text NOT NULL, CONSTRAINT fk_part_message_id_message_id_fk FOREIGN KEY (message_id) REFERENCES message(id) ON DELETE CASCADE);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
`;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A writer of an opencode database, with opencode's id scheme and a clock that moves 1 ms per id. */
export function opencodeDb(home: string, opts: { journal?: "wal" | "delete"; start?: number } = {}) {
  const dir = join(home, ".local", "share", "opencode");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "opencode.db");
  const db = new Database(path, { create: true });
  db.run(`PRAGMA journal_mode = ${opts.journal === "delete" ? "DELETE" : "WAL"}`);
  db.run(SCHEMA);
  // Recent by default: an unfinished reply is then still in progress, not abandoned.
  let clock = opts.start ?? Date.now() - 10 * 60 * 1000;
  let counter = 0;
  let rand = 0;
  db.query("INSERT INTO project VALUES ('global', '/', NULL, NULL, NULL, NULL, NULL, ?, ?, NULL, '[]', NULL)").run(clock, clock);
  const id = (prefix: "ses" | "msg" | "prt", descending = false) => {
    clock++;
    counter = 1;
    let n = (BigInt(clock) * 4096n + BigInt(counter)) & 0xffffffffffffn;
    if (descending) n = ~n & 0xffffffffffffn;
    let tail = "";
    for (let i = 0, r = ++rand * 7919; i < 14; i++, r = Math.floor(r / 62) + i * 31) tail += BASE62[r % 62];
    return `${prefix}_${n.toString(16).padStart(12, "0")}${tail}`;
  };
  const sessions = new Map<string, string>();
  return {
    path,
    db,
    /** The clock's current millisecond (what the next id is made from, less one). */
    now: () => clock,
    /** Moves the clock (a wrap of the 48-bit ids, say). */
    setClock: (ms: number) => {
      clock = ms;
    },
    session(directory: string, parent?: string): string {
      const sid = id("ses", true);
      sessions.set(sid, directory);
      db.query(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, version, time_created, time_updated) VALUES (?, 'global', ?, 'calm-lake', ?, ?, 'a session', '1.18.33', ?, ?)",
      ).run(sid, parent ?? null, directory, directory.slice(1), clock, clock);
      return sid;
    },
    /** A user message and its parts (text by default), written at once as opencode writes them. */
    user(session: string, parts: (string | Record<string, unknown>)[] = ["hello"]): string {
      const mid = id("msg");
      const t = clock;
      db.query("INSERT INTO message VALUES (?, ?, ?, ?, ?)").run(
        mid,
        session,
        t,
        t,
        JSON.stringify({ role: "user", time: { created: t }, agent: "build", model: { providerID: "local", modelID: "stand-in" }, summary: { diffs: [] } }),
      );
      for (const p of parts) this.part(session, mid, typeof p === "string" ? { type: "text", text: p } : p);
      return mid;
    },
    /** An assistant message, finished unless `completed: false`; parts added with `part`. */
    assistant(session: string, parent: string, o: { completed?: boolean; error?: object; finish?: string } = {}): string {
      const mid = id("msg");
      const t = clock;
      db.query("INSERT INTO message VALUES (?, ?, ?, ?, ?)").run(mid, session, t, t, JSON.stringify(assistantData(parent, t, sessions.get(session) ?? "/", o)));
      return mid;
    },
    /** Sets an assistant message's time.completed (and finish), as opencode does when the reply ends. */
    complete(message: string, finish = "stop") {
      const row = db.query<{ data: string }, [string]>("SELECT data FROM message WHERE id = ?").get(message)!;
      const data = JSON.parse(row.data);
      data.time.completed = ++clock;
      data.finish = finish;
      db.query("UPDATE message SET data = ?, time_updated = ? WHERE id = ?").run(JSON.stringify(data), clock, message);
    },
    part(session: string, message: string, data: Record<string, unknown>): string {
      const pid = id("prt");
      db.query("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)").run(pid, message, session, clock, clock, JSON.stringify(data));
      return pid;
    },
    /** Rewrites a part in place, as opencode does while a reply streams. */
    updatePart(part: string, data: Record<string, unknown>) {
      db.query("UPDATE part SET data = ?, time_updated = ? WHERE id = ?").run(JSON.stringify(data), ++clock, part);
    },
    /** A whole exchange: a prompt, an assistant step with reasoning, a tool call and its output, then a reply. */
    exchange(session: string, n: number, word = "turn"): void {
      const u = this.user(session, [`${word} ${n} question`]);
      const a = this.assistant(session, u, { finish: "tool-calls" });
      this.part(session, a, { type: "step-start" });
      this.part(session, a, { type: "reasoning", text: `${word} ${n} thinking`, time: { start: clock, end: clock } });
      this.part(session, a, toolPart("bash", `call_${n}`, { command: `echo ${n}` }, `${word} ${n} output\n`));
      this.part(session, a, {
        reason: "tool-calls",
        type: "step-finish",
        tokens: { total: 5, input: 3, output: 2, reasoning: 0, cache: { write: 0, read: 0 } },
        cost: 0,
      });
      const b = this.assistant(session, u);
      this.part(session, b, { type: "step-start" });
      this.part(session, b, { type: "text", text: `${word} ${n} answer`, time: { start: clock, end: clock } });
      this.part(session, b, {
        reason: "stop",
        type: "step-finish",
        tokens: { total: 5, input: 3, output: 2, reasoning: 0, cache: { write: 0, read: 0 } },
        cost: 0,
      });
    },
    close: () => db.close(),
  };
}

/** Records one `exchange` stores: user message + text, assistant message + 4 parts + tool result, assistant message + 3 parts. */
export const EXCHANGE_RECORDS = 2 + 6 + 4;

/** A finished assistant message's data as opencode 1.18.33 writes it. */
function assistantData(parent: string, t: number, cwd: string, o: { completed?: boolean; error?: object; finish?: string }) {
  return {
    parentID: parent,
    role: "assistant",
    mode: "build",
    agent: "build",
    path: { cwd, root: "/" },
    cost: 0,
    tokens: { total: 5, input: 3, output: 2, reasoning: 0, cache: { write: 0, read: 0 } },
    modelID: "stand-in",
    providerID: "local",
    time: o.completed === false ? { created: t } : { created: t, completed: t },
    ...(o.completed === false ? {} : { finish: o.finish ?? "stop" }),
    ...(o.error ? { error: o.error } : {}),
  };
}

/** A completed tool part as opencode writes it. */
export function toolPart(tool: string, callID: string, input: object, output: string, extra: Record<string, unknown> = {}) {
  return {
    type: "tool",
    tool,
    callID,
    state: { status: "completed", input, output, metadata: { output, exit: 0, truncated: false }, title: tool, time: { start: 1, end: 2 } },
    ...extra,
  };
}

/** The environment the hook and capture commands see: only opencode's data under `home` (no Claude Code, Codex or Gemini). */
export function opencodeEnv(home: string): Record<string, string> {
  return { CLAUDE_CONFIG_DIR: join(home, "no-claude"), CODEX_HOME: join(home, "no-codex") };
}

/** The hook as zerodb's plugin runs it. */
export function spawnOpencodeHook(home: string, session: string) {
  return Bun.spawn([ZERODB, "hook", "opencode", session], {
    cwd: home,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb"), ...opencodeEnv(home) },
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** A project directory under the test home. */
export function project(home: string, name = "app"): string {
  const cwd = join(home, "work", name);
  mkdirSync(cwd, { recursive: true });
  return cwd;
}

/** `capture sync` as seen with only opencode's data under `home`. */
export const sync = (home: string) => runJson(["capture", "sync"], { home, env: opencodeEnv(home) });

/** Keys in order, no duplicate, each source's positions rising. */
export function expectOrderedOnce(turns: StoredTurn[], count: number) {
  const { keys, duplicates } = keysOf(turns);
  expect(duplicates).toEqual([]);
  expect(keys.length).toBe(count);
  const bySource = new Map<string, number[]>();
  for (const k of keys) {
    const [, sid, pos, chunk] = /^opencode:([^:]+):(\d+):(\d+)$/.exec(k)!;
    if (chunk !== "0") continue;
    bySource.set(sid!, [...(bySource.get(sid!) ?? []), Number(pos)]);
  }
  for (const list of bySource.values()) expect(list).toEqual([...list].sort((a, b) => a - b));
}
