/**
 * SessionStart (DESIGN.md 7.2): record which capture session is the
 * project's latest, and hand Claude Code a bounded summary of what the
 * project's memory holds: its facts, its latest notes, and how the previous
 * session ended. Everything here was redacted when it was stored.
 */
import { isZeroDbError } from "../errors.ts";
import { NAME_MAX_BYTES } from "../limits.ts";
import { cutUtf8 } from "../project.ts";
import type { Turn } from "../schema/results.ts";
import type { Memory } from "../store/types.ts";
import { CONTEXT_MAX_BYTES } from "./limits.ts";

/**
 * The first line of the context SessionStart returns. Capture recognises the
 * context by it when Claude Code writes it back into the transcript
 * (turn-kind.ts): it stays distinctive, and a new wording must keep
 * recognising the old one in transcripts written before it.
 */
export const CONTEXT_HEADER = "# zerodb memory of this project";

/** The value of `project/<project session>/latest-capture`. */
export interface LatestCapture {
  session: string;
  harness_session: string;
  started: string;
  source?: string;
}

/** A per-project fact key, its project part shortened on a UTF-8 boundary (keeping the path hash) so it fits 255 bytes. */
export function projectFactKey(project: string, name: string): string {
  const fixed = `project//${name}`;
  const room = NAME_MAX_BYTES - Buffer.byteLength(fixed, "utf8");
  if (Buffer.byteLength(project, "utf8") <= room) return `project/${project}/${name}`;
  const hash = project.slice(-9); // "-" and 8 hex (projectSession)
  return `project/${cutUtf8(project.slice(0, -9), room - 9)}${hash}/${name}`;
}

/**
 * Reads the previous latest capture, records this one (unless it is already
 * recorded), and returns the context to print, or "" when memory holds nothing
 * worth starting with.
 */
export async function startContext(
  memory: Memory,
  opts: { project: string; session: string; harnessSession: string; source?: string; now?: Date },
): Promise<string> {
  const key = projectFactKey(opts.project, "latest-capture");
  const previous = await optional(() => memory.factGet({ key }));
  const prev = previous?.value as Partial<LatestCapture> | undefined;
  if (prev?.session !== opts.session) {
    const value: LatestCapture = {
      session: opts.session,
      harness_session: opts.harnessSession,
      started: (opts.now ?? new Date()).toISOString(),
      ...(opts.source ? { source: opts.source } : {}),
    };
    await memory.factSet({ key, value });
  }
  const sections: string[] = [];
  const facts = await projectFacts(memory, opts.project);
  if (facts.length > 0) sections.push(["## Facts", ...facts].join("\n"));
  const notes = (await tail(memory, { session: opts.project, n: 8 })).reverse();
  if (notes.length > 0) sections.push(["## Latest notes", ...notes.map((t) => `- ${oneLine(t.content, 400)}`)].join("\n"));
  if (typeof prev?.session === "string" && prev.session !== opts.session) {
    const turns = await tail(memory, { session: prev.session, n: 10, keep: said });
    if (turns.length > 0) {
      const when = typeof prev.started === "string" ? `, started ${prev.started}` : "";
      sections.push([`## How the previous session ended (${prev.session}${when})`, ...turns.map((t) => `${t.role}: ${oneLine(t.content, 500)}`)].join("\n"));
    }
  }
  if (sections.length === 0) return "";
  const head = `${CONTEXT_HEADER}\nProject session: ${opts.project}. The zerodb MCP tools (search, recall, fact_get) reach the rest.`;
  return fit([head, ...sections].join("\n\n"), CONTEXT_MAX_BYTES);
}

/**
 * A turn someone said: a prompt or a reply that is not thinking (DESIGN.md 11
 * kinds); turns captured before kinds existed are judged by role and text.
 */
function said(t: Turn): boolean {
  if (/^\[(tool_use|thinking)/.test(t.content)) return false;
  const kind = t.meta.kind;
  if (typeof kind === "string") return (kind === "prompt" || kind === "reply") && t.meta.noise === undefined;
  return t.role === "user" || t.role === "assistant";
}

/** `- key = value` lines of the project's facts (both `project/<p>/…` and `<p>/…`), latest-capture left out. */
async function projectFacts(memory: Memory, project: string): Promise<string[]> {
  const out: string[] = [];
  for (const prefix of [`project/${project}/`, `${project}/`]) {
    const page = await optional(() => memory.factList({ prefix, limit: 50 }));
    for (const f of page?.facts ?? []) {
      if (f.key.endsWith("/latest-capture")) continue;
      out.push(`- ${f.key} = ${oneLine(typeof f.value === "string" ? f.value : JSON.stringify(f.value), 300)}`);
    }
  }
  return out;
}

/**
 * The last `n` turns of a session that pass `keep` (default: all), oldest
 * first, read in growing LSN windows back from its end (the Memory interface
 * pages forward only).
 */
async function tail(memory: Memory, { session, n, keep = () => true }: { session: string; n: number; keep?: (t: Turn) => boolean }): Promise<Turn[]> {
  const listing = await optional(() => memory.sessions({ prefix: session, limit: 1 }));
  const info = listing?.sessions[0];
  if (!info || info.name !== session) return [];
  let kept: Turn[] = [];
  // A window of w LSNs holds at most w turns: up to 1000, one page reads all of it.
  for (const window of [16, 64, 256, 1000]) {
    const after = Math.max(info.first_lsn - 1, info.last_lsn - window);
    const page = await memory.read({ session, after, limit: 1000 });
    kept = page.turns.filter(keep);
    if (kept.length >= n || after === info.first_lsn - 1) break;
  }
  return kept.slice(-n);
}

/** A not_found answer as undefined. */
async function optional<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (isZeroDbError(err) && err.code === "not_found") return undefined;
    throw err;
  }
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max).toWellFormed()}…` : flat;
}

/** Cuts text to `max` UTF-8 bytes at a line boundary. */
function fit(text: string, max: number): string {
  if (Buffer.byteLength(text, "utf8") <= max) return text;
  const cut = cutUtf8(text, max - 4);
  const nl = cut.lastIndexOf("\n");
  return `${nl > 0 ? cut.slice(0, nl) : cut}\n…`;
}
