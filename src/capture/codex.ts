/**
 * Codex CLI rollouts (HARNESSES.md "Codex CLI"):
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<timestamp>-<thread id>.jsonl`,
 * compressed in place to `.jsonl.zst` once old. One source per thread id:
 * the cursor is keyed `codex:<thread id>`, never by file name, so a rollout
 * already held is recognised after it becomes `.zst` (its offsets are those
 * of the decompressed bytes), and `codex exec resume` appending to it only
 * moves the cursor on.
 */
import { join } from "node:path";
import { listDir } from "../util/fs.ts";
import { type Source, idemPrefix } from "./sources.ts";

const ROLLOUT = /^rollout-.*-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl(\.zst)?$/;
const DIGITS = /^\d+$/;

/** The thread id of a rollout file name, or undefined when the name is not a rollout's. */
export function rolloutId(fileName: string): string | undefined {
  return ROLLOUT.exec(fileName)?.[1]?.toLowerCase();
}

/** The capture source of a rollout file. */
export function codexSource(path: string, threadId: string): Source {
  const key = `codex:${threadId}`;
  return { format: "codex", key, idemPrefix: idemPrefix(key), path };
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

/** The rollout of one thread, searched newest day first (a resumed thread's file stays in its first day). */
export function findRollout(codexHome: string, threadId: string): string | undefined {
  const id = threadId.toLowerCase();
  for (const dir of dayDirs(codexHome).reverse()) {
    const path = rolloutsIn(dir).get(id);
    if (path !== undefined) return path;
  }
  return undefined;
}
