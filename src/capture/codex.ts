/**
 * Codex CLI rollouts (HARNESSES.md "Codex CLI"):
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<timestamp>-<thread id>.jsonl`,
 * compressed in place to `.jsonl.zst` once old. One source per thread id:
 * the cursor is keyed `codex:<thread id>`, never by file name, so a rollout
 * already held is recognised after it becomes `.zst` (its offsets are those
 * of the decompressed bytes), and `codex exec resume` appending to it only
 * moves the cursor on.
 */
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { listDir } from "../util/fs.ts";
import { openLines } from "./lines.ts";
import { type Source, idemPrefix } from "./sources.ts";

const ROLLOUT = /^rollout-.*-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl(\.zst)?$/;
const DIGITS = /^\d+$/;

/** The thread id of a rollout file name, or undefined when the name is not a rollout's. */
export function rolloutId(fileName: string): string | undefined {
  return ROLLOUT.exec(fileName)?.[1]?.toLowerCase();
}

/**
 * Where a thread came from, by its session_meta's `source` (Codex's
 * SessionSource, serialized as in its state database, e.g.
 * `{"subagent":{"other":"guardian"}}`): `"cli"`, `"vscode"`, `"exec"`,
 * `"mcp"` for a thread a person runs; `{"subagent": "review" | "compact" |
 * "memory_consolidation" | {"thread_spawn": {"parent_thread_id", "depth",
 * "agent_nickname", "agent_role", ...}} | {"other": name}}` for one Codex
 * started itself, and `{"internal": name}` for its own internal threads.
 */
export interface ThreadOrigin {
  /** Set for a thread Codex started: `thread_spawn`, `review`, `compact`, `other:<name>`, `internal:<name>`... */
  subagent?: string;
  /** The thread whose session it goes into: the root thread (session_meta `session_id`), else the spawning thread. */
  parent?: string;
}

/** A rollout's origin, from its first line (session_meta); none when it cannot be read or says nothing. */
export function threadOrigin(path: string): ThreadOrigin {
  let first: string | undefined;
  try {
    using reader = openLines(path);
    for (const line of reader.lines(0)) {
      first = Buffer.from(line.bytes.buffer, line.bytes.byteOffset, line.bytes.byteLength).toString("utf8");
      break;
    }
  } catch {
    return {};
  }
  if (first === undefined || !first.includes('"session_meta"')) return {};
  let meta: { type?: unknown; payload?: { id?: unknown; session_id?: unknown; source?: unknown } };
  try {
    meta = JSON.parse(first) as typeof meta;
  } catch {
    return {};
  }
  if (meta.type !== "session_meta") return {};
  const origin = originOf(meta.payload?.source);
  // A spawned thread's `session_id` is its root thread's (a subagent's subagent names its own parent in the source): the root's session holds them all.
  const root = typeof meta.payload?.session_id === "string" ? meta.payload.session_id.toLowerCase() : undefined;
  if (origin.subagent !== undefined && root !== undefined && THREAD_ID.test(root) && root !== meta.payload?.id) return { ...origin, parent: root };
  return origin;
}

/** The origin a session_meta `source` value names. */
export function originOf(source: unknown): ThreadOrigin {
  if (typeof source !== "object" || source === null || Array.isArray(source)) return {};
  const o = source as Record<string, unknown>;
  const label = (v: unknown): string | undefined => (typeof v === "string" && SAFE_LABEL.test(v) ? v : undefined);
  if ("internal" in o) return { subagent: `internal:${label(o.internal) ?? "other"}` };
  if (!("subagent" in o)) return {};
  const sub = o.subagent;
  if (typeof sub === "string") return { subagent: label(sub) ?? "other" };
  if (typeof sub !== "object" || sub === null || Array.isArray(sub)) return { subagent: "other" };
  const s = sub as Record<string, unknown>;
  if ("thread_spawn" in s) {
    const spawn = s.thread_spawn as { parent_thread_id?: unknown } | null;
    const parent = typeof spawn?.parent_thread_id === "string" ? spawn.parent_thread_id.toLowerCase() : undefined;
    return { subagent: "thread_spawn", ...(parent !== undefined && THREAD_ID.test(parent) ? { parent } : {}) };
  }
  if ("other" in s) return { subagent: `other:${label(s.other) ?? "other"}` };
  const kind = Object.keys(s)[0];
  return { subagent: label(kind) ?? "other" };
}

const SAFE_LABEL = /^[A-Za-z0-9_.-]{1,64}$/;
const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The capture source of a rollout file; a thread Codex started itself is marked as a subagent's (sidechain). */
export function codexSource(path: string, threadId: string, origin: ThreadOrigin = {}): Source {
  const key = `codex:${threadId}`;
  return { format: "codex", key, idemPrefix: idemPrefix(key), path, ...(origin.subagent !== undefined ? { agentId: threadId } : {}) };
}

/** The dated directories `sessions/YYYY/MM/DD`, oldest first. */
function dayDirs(codexHome: string): string[] {
  const out: string[] = [];
  const root = join(codexHome, "sessions");
  const numeric = (dir: string) =>
    listDir(dir)
      .filter((n) => DIGITS.test(n))
      .sort();
  for (const y of numeric(root)) for (const m of numeric(join(root, y))) for (const d of numeric(join(root, y, m))) out.push(join(root, y, m, d));
  return out;
}

/** A directory's rollouts by thread id: the plain file while it still exists, else its `.zst`. */
function rolloutsIn(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of listDir(dir).sort()) {
    const id = rolloutId(name);
    if (id === undefined) continue;
    const held = found.get(id);
    // Codex writes the .zst, then removes the plain file: while both exist the plain one is whole.
    if (held === undefined || held.endsWith(".zst")) found.set(id, join(dir, name));
  }
  return found;
}

/** Every rollout under `<codex home>/sessions`, oldest day first. */
export function findRollouts(codexHome: string): string[] {
  const out: string[] = [];
  for (const dir of dayDirs(codexHome)) out.push(...rolloutsIn(dir).values());
  return out;
}

/**
 * The rollouts of the threads Codex spawned under a root thread (subagents,
 * and theirs: a spawned thread's session_meta names its root), in the root
 * rollout's day directory and later ones, changed since the root's started.
 */
export function spawnedRollouts(codexHome: string, root: string, rootPath: string): { path: string; thread: string; origin: ThreadOrigin }[] {
  const id = root.toLowerCase();
  const from = dirname(rootPath);
  const since = statSync(rootPath).birthtimeMs || 0;
  const out: { path: string; thread: string; origin: ThreadOrigin }[] = [];
  for (const dir of dayDirs(codexHome).filter((d) => d >= from)) {
    for (const [thread, path] of rolloutsIn(dir)) {
      if (thread === id || !changedSince(path, since)) continue;
      const origin = threadOrigin(path);
      if (origin.parent === id) out.push({ path, thread, origin });
    }
  }
  return out;
}

function changedSince(path: string, ms: number): boolean {
  try {
    return statSync(path).mtimeMs >= ms;
  } catch {
    return false;
  }
}

/** The rollout of one thread, searched newest day first (a resumed thread's file stays in its first day). */
export function findRollout(codexHome: string, threadId: string): string | undefined {
  const id = threadId.toLowerCase();
  for (const dir of dayDirs(codexHome).reverse()) {
    const path = rolloutsIn(dir).get(id);
    if (path !== undefined) return path;
  }
  return undefined;
}
