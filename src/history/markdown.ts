/**
 * A session as a conversation a person reads (DESIGN.md section 17): who
 * spoke and when, prompts and replies in the open, each tool call folded into
 * one line and its result a block cut at a length the caller chooses, runs of
 * harness bookkeeping as one line, images as references to their objects.
 * Only what the store holds is printed (it was redacted when stored), and the
 * same turns always give the same bytes. Every text from the store goes
 * through escape.ts: it can never become raw HTML.
 */
import type { Turn } from "../schema/results.ts";
import { SearchClass, turnClass } from "../search/search-class.ts";
import { codeBlock, codeSpan, markdownText } from "./escape.ts";

/** Characters of a tool result shown by default; the rest is counted and left to `zerodb read`. */
export const RESULT_CHARS_DEFAULT = 2000;

/** How a session is rendered. */
export interface MarkdownOptions {
  /** Characters of each tool result shown (0: all of it). */
  resultChars?: number;
}

/** A turn's role and shape, as its heading says it. */
type Shape = "prompt" | "reply" | "call" | "result" | "note" | "system" | "noise";

/** The tool names a turn's meta lists (capture records them as meta.tools). */
function tools(meta: Record<string, unknown>): string[] {
  return Array.isArray(meta.tools) ? meta.tools.filter((t): t is string => typeof t === "string") : [];
}

/** The shape of a turn, from its role and what capture recorded in its meta. */
function shapeOf(t: Turn): Shape {
  if (turnClass(t.role, t.meta) === SearchClass.noise) return "noise";
  if (t.role === "tool") return "result";
  if (t.role === "assistant") return tools(t.meta).length > 0 ? "call" : "reply";
  if (t.role === "user") return "prompt";
  if (t.role === "note") return "note";
  return "system";
}

/** The digests of the images capture stored for a turn (meta.images[].object). */
function images(meta: Record<string, unknown>): string[] {
  if (!Array.isArray(meta.images)) return [];
  return meta.images
    .map((i) => (typeof i === "object" && i !== null ? (i as { object?: unknown }).object : undefined))
    .filter((o): o is string => typeof o === "string" && /^sha256:[0-9a-f]{64}$/.test(o));
}

const TITLES: Record<Exclude<Shape, "noise">, string> = {
  prompt: "User",
  reply: "Assistant",
  call: "Tool call",
  result: "Tool result",
  note: "Note",
  system: "System",
};

/** The part of a call's or result's text after capture's `[tool_use NAME]` / `[tool_result]` tag line. */
function untagged(content: string): string {
  return /^\[tool_(use [^\]\n]*|result( error)?)\]\n/.test(content) ? content.slice(content.indexOf("\n") + 1) : content;
}

/** One line of at most `max` characters. */
function cut(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max).toWellFormed()}…` : line;
}

/**
 * When a turn was said: the time its harness wrote on the line (capture keeps
 * it as meta.timestamp), else when zerodb stored it (a note, or a harness
 * that writes no time). A capture stores many lines at once, so the store's
 * time alone would say little about a conversation.
 */
function saidAt(t: Turn): string {
  const ts = t.meta.timestamp;
  const ms = typeof ts === "string" && /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(ts) ? Date.parse(ts) : Number.NaN;
  // Meta is the writer's: a time that does not parse (or is out of range) is not shown, the stored one is.
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : t.ts;
}

/** A turn's heading: what it is, whether a subagent said it, its time and LSN. */
function heading(t: Turn, shape: Exclude<Shape, "noise">): string {
  const sub = t.meta.isSidechain === true ? " (subagent)" : "";
  return `### ${TITLES[shape]}${sub} · ${saidAt(t)} · LSN ${t.lsn}`;
}

/** One turn as Markdown blocks. */
function turnBlocks(t: Turn, shape: Exclude<Shape, "noise">, opts: Required<MarkdownOptions>): string[] {
  const out = [heading(t, shape)];
  if (shape === "call") {
    const body = untagged(t.content);
    out.push(`**${tools(t.meta).map(escapeName).join(", ")}** ${codeSpan(cut(body, 200))}`);
  } else if (shape === "result") {
    const body = untagged(t.content);
    const chars = [...body];
    const shown = opts.resultChars > 0 && chars.length > opts.resultChars ? chars.slice(0, opts.resultChars).join("") : body;
    if (t.content.startsWith("[tool_result error]")) out.push("_The tool reported an error._");
    out.push(codeBlock(shown));
    if (shown !== body) out.push(`_… ${chars.length - opts.resultChars} more characters, in turn LSN ${t.lsn} as stored._`);
  } else {
    out.push(t.content === "" ? "_(empty)_" : markdownText(t.content));
  }
  for (const o of images(t.meta)) out.push(`Image: ${codeSpan(o)} (\`zerodb object get ${o} --out FILE\`)`);
  return out;
}

/** A tool name as bold text: letters, digits and `_-.:` kept, anything else escaped by codeSpan's rules in a span. */
function escapeName(name: string): string {
  return /^[A-Za-z0-9_.:-]+$/.test(name) ? name.replaceAll("_", "\\_") : codeSpan(name);
}

/** A run of bookkeeping turns as one line. */
function noiseLine(run: Turn[]): string {
  const n = run.length;
  const lsns = n === 1 ? `LSN ${run[0]!.lsn}` : `LSN ${run[0]!.lsn}–${run[n - 1]!.lsn}`;
  return `_${n} bookkeeping turn${n === 1 ? "" : "s"} (harness metadata, zerodb's own context and calls), ${lsns}._`;
}

/**
 * A session's turns (in LSN order) as a Markdown section: a heading with
 * the session's name and span, then each turn. `level` 1 makes it the
 * document's title; 2 a section of a longer export.
 */
export function sessionMarkdown(session: string, turns: readonly Turn[], opts: MarkdownOptions & { level?: 1 | 2 } = {}): string {
  const o: Required<MarkdownOptions> = { resultChars: opts.resultChars ?? RESULT_CHARS_DEFAULT };
  const blocks = [`${"#".repeat(opts.level ?? 1)} Session ${codeSpan(session)}`];
  if (turns.length === 0) blocks.push("_No turns._");
  else {
    const first = turns[0]!;
    const last = turns[turns.length - 1]!;
    blocks.push(
      `${turns.length} turn${turns.length === 1 ? "" : "s"}, LSN ${first.lsn}–${last.lsn}, stored ${first.ts} to ${last.ts}. ` +
        "Each turn shows when its harness wrote it (or, without such a time, when zerodb stored it). Content is as stored: secrets were redacted on the way in.",
    );
  }
  let noise: Turn[] = [];
  const flush = () => {
    if (noise.length > 0) blocks.push(noiseLine(noise));
    noise = [];
  };
  for (const t of turns) {
    const shape = shapeOf(t);
    if (shape === "noise") {
      noise.push(t);
      continue;
    }
    flush();
    blocks.push(...turnBlocks(t, shape, o));
  }
  flush();
  return `${blocks.join("\n\n")}\n`;
}

/** Sessions under a prefix (all of them for none) as one document: a title, then each session as a section. */
export function prefixMarkdown(prefix: string | undefined, sessions: readonly { name: string; turns: readonly Turn[] }[], opts: MarkdownOptions = {}): string {
  const head = prefix ? `# Sessions under ${codeSpan(prefix)}\n` : "# All sessions\n";
  if (sessions.length === 0) return `${head}\n_No sessions._\n`;
  return [head, ...sessions.map((s) => sessionMarkdown(s.name, s.turns, { ...opts, level: 2 }))].join("\n");
}
