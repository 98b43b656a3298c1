/**
 * The distractor turns of the real labelled set (DESIGN.md 11, "Measured on
 * real data"): real turns of other coding-agent sessions, committed by public
 * repositories (DISTRACTOR_SOURCES), read from their fetched snapshots at the
 * pinned commit and split into turns. Nothing fetched is stored in this
 * repository; a missing snapshot is reported, not papered over.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Source } from "./_types.ts";
import { DISTRACTOR_SOURCES } from "./distractor-sources.ts";

/** One distractor turn, as the bench appends it. */
export interface DistractorTurn {
  role: "user" | "assistant" | "tool";
  content: string;
  session: string;
}

type Role = DistractorTurn["role"];

/** A turn before its session is named: which sub-session of the file it belongs to (aider starts several in one file). */
interface RawTurn {
  role: Role;
  content: string;
  part?: number;
}

const CAP = 64 * 1024;
const SESSION_MAX = 200;

/** The first `n` distractor turns of DISTRACTOR_SOURCES (in list order), read from the snapshots under `mirror`. */
export function distractorTurns(mirror: string, n: number): DistractorTurn[] {
  const out: DistractorTurn[] = [];
  const used = new Set<string>();
  for (const s of DISTRACTOR_SOURCES) {
    if (out.length >= n) break;
    let base = sessionBase(s);
    for (let i = 2; used.has(base); i++) base = `${sessionBase(s).slice(0, SESSION_MAX - 8)}-${i}`;
    used.add(base);
    for (const t of splitTurns(s.format, readSnapshotFile(mirror, s))) {
      if (out.length >= n) break;
      const content = cap(t.content.trim());
      if (content === "") continue;
      out.push({ role: t.role, content, session: t.part === undefined ? base : `${base}/${t.part}` });
    }
  }
  return out;
}

/** The git directory `fetch` made for a repository (`<owner>+<name>/repo`, or its `.git` when the snapshot has a work tree). */
function gitDir(mirror: string, repo: string): string {
  const base = join(mirror, repo.replace("/", "+"));
  for (const d of [join(base, "repo", ".git"), join(base, "repo"), base]) if (existsSync(join(d, "HEAD")) && existsSync(join(d, "objects"))) return d;
  throw new Error(`distractor snapshot of ${repo} is missing: no git directory under ${base} (fetch github:${repo})`);
}

/** A source file's text at its pinned commit. */
function readSnapshotFile(mirror: string, s: Source): string {
  const dir = gitDir(mirror, s.repo);
  const r = Bun.spawnSync(["git", "--git-dir", dir, "show", `${s.commit}:${s.path}`], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`distractor source ${s.id} (${s.repo}@${s.commit.slice(0, 8)}:${s.path}) unreadable: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

/** `<project>/<file stem>`, kept to [A-Za-z0-9._/-], no empty or dot-only segment, at most SESSION_MAX bytes. */
function sessionBase(s: Source): string {
  const clean = (x: string) =>
    x
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/-{2,}/g, "-")
      .replace(/^[-.]+|[-.]+$/g, "");
  const stem = s.path
    .split("/")
    .pop()!
    .replace(/\.(md|jsonl|json)$/i, "");
  const project = clean(s.project) || "project";
  const file = clean(stem) || "session";
  return `${project}/${file}`.slice(0, SESSION_MAX - 8).replace(/[-.]+$/, "");
}

/** At most CAP bytes of UTF-8, cut on a character boundary. */
function cap(s: string): string {
  if (s.length * 3 <= CAP) return s;
  const b = Buffer.from(s, "utf8");
  if (b.length <= CAP) return s;
  let end = CAP;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return b.subarray(0, end).toString("utf8");
}

/** A file's turns, by its format. */
function splitTurns(format: Source["format"], text: string): RawTurn[] {
  switch (format) {
    case "markdown":
      return /^_\*\*(User|Assistant|Agent)\b/m.test(text) ? specStoryTurns(text) : aiderTurns(text);
    case "claude":
      return jsonLines(text).flatMap(claudeTurns);
    case "codex":
      return jsonLines(text).flatMap(codexTurns);
    default:
      throw new Error(`distractor format ${format} is not read here`);
  }
}

const FENCE = /^\s{0,3}(```|~~~)/;
const SPEAKER = /^_\*\*(User|Assistant|Agent)\b[^\n]*\*\*_\s*$/;
/** What parts an assistant section's segments: `---`, or the `_****_` of early-2025 SpecStory. */
const RULE = /^\s*(---|_\*\*\*\*_)\s*$/;
const TOOL_OPEN = /^<(details|tool-use)\b/;
const TOOL_TAGS = /<(\/?)(details|tool-use)\b/g;
/** How a SpecStory segment that is a tool call, not prose, begins (Cursor's read/list/search/run/edit results). */
const TOOL_SEGMENT =
  /^(Read file:|Could not find file|Listed (current )?directory|Searched (codebase|web|files)|Grep search|Cancelled|Model (provided|failed)|Tool use:|Tool call|### Rule:|```(bash|sh|shell|zsh|powershell|pwsh|cmd|diff)[ \t]*(\n|$))/;

/**
 * SpecStory markdown: `_**User**_` / `_**Assistant**_` (or `_**Agent (...)**_`) sections; an
 * assistant section's `---`-separated segments and its `<details>` / `<tool-use>` blocks each a
 * turn, tool calls and results as "tool".
 */
function specStoryTurns(text: string): RawTurn[] {
  const turns: RawTurn[] = [];
  let speaker: "user" | "assistant" | null = null;
  let lines: string[] = [];
  const flush = () => {
    if (speaker === "user") turns.push({ role: "user", content: trimRules(lines).join("\n") });
    else if (speaker === "assistant") turns.push(...assistantSegments(lines));
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const m = SPEAKER.exec(line);
    if (m) {
      flush();
      speaker = m[1] === "User" ? "user" : "assistant";
    } else if (speaker !== null) lines.push(line);
  }
  flush();
  return turns;
}

/** Drops rules (`---`, `_****_`) and blank lines at either end. */
function trimRules(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && (RULE.test(lines[a]!) || lines[a]!.trim() === "")) a++;
  while (b > a && (RULE.test(lines[b - 1]!) || lines[b - 1]!.trim() === "")) b--;
  return lines.slice(a, b);
}

/** An assistant section: prose segments as "assistant", tool blocks and tool-shaped segments as "tool". */
function assistantSegments(lines: string[]): RawTurn[] {
  const turns: RawTurn[] = [];
  let cur: string[] = [];
  let fence = false;
  let depth = 0;
  const emit = (role: Role | null) => {
    const body = trimRules(cur).join("\n");
    cur = [];
    if (body.trim() === "") return;
    turns.push({ role: role ?? (TOOL_SEGMENT.test(body) ? "tool" : "assistant"), content: body });
  };
  for (const line of lines) {
    if (depth > 0) {
      cur.push(line);
      if (FENCE.test(line)) fence = !fence;
      else if (!fence) for (const m of line.matchAll(TOOL_TAGS)) depth += m[1] === "/" ? -1 : 1;
      if (depth <= 0) {
        depth = 0;
        fence = false;
        emit("tool");
      }
      continue;
    }
    if (FENCE.test(line)) fence = !fence;
    if (!fence && TOOL_OPEN.test(line)) {
      emit(null);
      cur.push(line);
      for (const m of line.matchAll(TOOL_TAGS)) depth += m[1] === "/" ? -1 : 1;
      if (depth <= 0) {
        depth = 0;
        emit("tool");
      }
      continue;
    }
    if (!fence && RULE.test(line)) emit(null);
    else cur.push(line);
  }
  emit(depth > 0 ? "tool" : null);
  return turns;
}

/**
 * aider `.aider.chat.history.md`: `# aider chat started at` opens a session, `#### ` lines are the
 * user's, `> ` lines aider's own output (commands run, edits applied, prompts), the rest the reply.
 */
function aiderTurns(text: string): RawTurn[] {
  const turns: RawTurn[] = [];
  let part = 0;
  let role: Role | null = null;
  let cur: string[] = [];
  let fence = false;
  const flush = () => {
    if (role !== null) turns.push({ role, content: cur.join("\n"), part });
    role = null;
    cur = [];
    fence = false;
  };
  for (const line of text.split(/\r?\n/)) {
    if (role === "assistant" && fence) {
      cur.push(line);
      if (FENCE.test(line)) fence = false;
      continue;
    }
    if (/^# aider chat started at /.test(line)) {
      flush();
      part++;
      continue;
    }
    const kind: Role | null = /^#### /.test(line) || line === "####" ? "user" : /^>( |$)/.test(line) ? "tool" : line.trim() === "" ? null : "assistant";
    const body = kind === "user" ? line.slice(5) : kind === "tool" ? line.slice(2) : line;
    if (kind === null) {
      if (role !== null) cur.push("");
      continue;
    }
    if (kind !== role) {
      flush();
      role = kind;
    }
    cur.push(body);
    if (kind === "assistant" && FENCE.test(line)) fence = true;
  }
  flush();
  return turns;
}

/** The parsed objects of a JSONL file, skipping lines that are not JSON objects. */
function jsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v !== null && typeof v === "object" && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // a torn or non-JSON line: not a turn
    }
  }
  return out;
}

/** A value as text: strings as they are, text blocks joined, anything else as JSON. */
function asText(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v))
    return v
      .map((b) => {
        if (typeof b === "string") return b;
        const o = b as { type?: unknown; text?: unknown };
        if (o && typeof o.text === "string") return o.text;
        return o && o.type === "image" ? "" : JSON.stringify(b);
      })
      .filter((x) => x !== "")
      .join("\n");
  return v === undefined || v === null ? "" : JSON.stringify(v);
}

/** A Claude Code JSONL line: message text as user/assistant, tool_use inputs and tool_result texts as "tool". */
function claudeTurns(line: Record<string, unknown>): RawTurn[] {
  const type = line.type;
  if ((type !== "user" && type !== "assistant") || line.isMeta === true) return [];
  const msg = line.message as { content?: unknown } | undefined;
  const content = msg?.content;
  if (typeof content === "string") return [{ role: type, content }];
  if (!Array.isArray(content)) return [];
  const turns: RawTurn[] = [];
  for (const b of content as Record<string, unknown>[]) {
    if (b?.type === "text" && typeof b.text === "string") turns.push({ role: type, content: b.text });
    else if (b?.type === "tool_use") turns.push({ role: "tool", content: `${String(b.name ?? "tool")} ${JSON.stringify(b.input ?? {})}` });
    else if (b?.type === "tool_result") turns.push({ role: "tool", content: asText(b.content) });
  }
  return turns;
}

/** A Codex rollout line (`response_item` payloads, or the older bare items): messages, function calls and their outputs. */
function codexTurns(line: Record<string, unknown>): RawTurn[] {
  const item = (line.type === "response_item" ? line.payload : line) as Record<string, unknown> | undefined;
  if (!item) return [];
  switch (item.type) {
    case "message": {
      const role = item.role;
      if (role !== "user" && role !== "assistant") return [];
      return [{ role, content: asText(item.content) }];
    }
    case "function_call":
    case "custom_tool_call":
      return [{ role: "tool", content: `${String(item.name ?? "tool")} ${asText(item.arguments ?? item.input)}` }];
    case "local_shell_call":
      return [{ role: "tool", content: asText(item.action) }];
    case "function_call_output":
    case "custom_tool_call_output": {
      const o = item.output as unknown;
      const content = o && typeof o === "object" && !Array.isArray(o) ? asText((o as { content?: unknown }).content) : asText(o);
      return [{ role: "tool", content }];
    }
    default:
      return [];
  }
}
