/**
 * Gemini CLI chats (HARNESSES.md "Gemini CLI"):
 * `<gemini dir>/tmp/<project short name>/chats/session-<time>-<id8>.jsonl`,
 * the older whole-file `session-*.json`, and subagents' chats in
 * `chats/<parent session id>/<session id>.jsonl`. A resume in a later minute
 * starts a second file with the same sessionId, so each file has its own
 * cursor (`gemini:<short name>/<file>`), and all files of one session go to
 * one capture session. The project directory is `.project_root` in the
 * project's tmp folder (or its entry in `projects.json`): no chat line names it.
 */
import { closeSync, readFileSync, readSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { listDir } from "../util/fs.ts";
import { openRegular } from "./lines.ts";
import { type Source, idemPrefix } from "./sources.ts";

const CHAT = /^session-.+\.jsonl?$/;
const SUBAGENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.jsonl$/;
const SAFE_DIR = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Where a chat file sits: its project folder, and for a subagent's chat the parent session's id. */
export interface ChatPlace {
  projectDir: string;
  short: string;
  /** `<file>` or `<parent id>/<file>`, the file's path under chats/. */
  rel: string;
  parent?: string;
}

/** The place of a path that is a Gemini chat (`.../<short>/chats/[<parent>/]<file>`), or undefined. */
export function chatPlace(path: string): ChatPlace | undefined {
  const name = basename(path);
  const dir = dirname(path);
  if (basename(dir) === "chats" && CHAT.test(name)) {
    const projectDir = dirname(dir);
    return { projectDir, short: basename(projectDir), rel: name };
  }
  const chats = dirname(dir);
  if (basename(chats) === "chats" && SUBAGENT.test(name) && SAFE_DIR.test(basename(dir))) {
    const projectDir = dirname(chats);
    return { projectDir, short: basename(projectDir), rel: `${basename(dir)}/${name}`, parent: basename(dir) };
  }
  return undefined;
}

/** The capture source of a chat file. */
export function geminiSource(path: string, place: ChatPlace): Source {
  const key = `gemini:${place.short}/${place.rel}`;
  return {
    format: "gemini",
    key,
    idemPrefix: idemPrefix(key),
    path,
    ...(place.parent !== undefined ? { agentId: basename(path).replace(/\.jsonl$/, "") } : {}),
  };
}

/** Every chat under `<gemini dir>/tmp`, subagents' after their project's sessions. */
export function findChats(geminiDir: string): string[] {
  const out: string[] = [];
  const tmp = join(geminiDir, "tmp");
  for (const short of listDir(tmp).sort()) {
    const chats = join(tmp, short, "chats");
    const names = listDir(chats).sort();
    for (const n of names) if (CHAT.test(n)) out.push(join(chats, n));
    for (const d of names)
      if (SAFE_DIR.test(d) && !CHAT.test(d)) for (const n of listDir(join(chats, d)).sort()) if (SUBAGENT.test(n)) out.push(join(chats, d, n));
  }
  return out;
}

/** The subagent chats of a session (`chats/<session id>/*.jsonl`). */
export function subagentChats(chatPath: string, sessionId: string): string[] {
  if (!SAFE_DIR.test(sessionId)) return [];
  const dir = join(dirname(chatPath), sessionId);
  return listDir(dir)
    .filter((n) => SUBAGENT.test(n))
    .sort()
    .map((n) => join(dir, n));
}

/** The session id of a chat: its parent's for a subagent, else the first line's (or the .json file's) `sessionId`. */
export function chatSessionId(path: string, place: ChatPlace): string | undefined {
  if (place.parent !== undefined) return place.parent;
  let head: string;
  try {
    head = readHead(path);
  } catch {
    return undefined;
  }
  const m = /"sessionId"\s*:\s*"([^"\\]{1,200})"/.exec(head);
  return m?.[1];
}

/** The project directory of a chat: `.project_root`, else the path `projects.json` maps to its short name. */
export function chatCwd(place: ChatPlace): string | undefined {
  try {
    const root = readFileSync(join(place.projectDir, ".project_root"), "utf8").trim();
    if (root !== "") return root;
  } catch {
    // Older layouts have none: try projects.json.
  }
  try {
    const geminiDir = dirname(dirname(place.projectDir));
    const projects = (JSON.parse(readFileSync(join(geminiDir, "projects.json"), "utf8")) as { projects?: Record<string, unknown> }).projects ?? {};
    for (const [path, short] of Object.entries(projects)) if (short === place.short) return path;
  } catch {
    return undefined;
  }
  return undefined;
}

/** The first 4 KiB of a file (opened as transcripts are: no symlink, no FIFO). */
function readHead(path: string): string {
  const fd = openRegular(path);
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
