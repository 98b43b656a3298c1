/**
 * Gemini CLI writes a message again, whole and with the same id, each time it
 * changes (HARNESSES.md "Gemini CLI"): its token counts arrive, its tool calls
 * are added, then their results. Every line is stored (nothing is lost), but
 * search should find each message once. So a message line is compared with
 * the nearest earlier line of the same message id:
 *
 * - the same text: stored as it is, marked `rewrite: "same"` and noise
 *   `rewrite` (search leaves it out; the earlier line has that text);
 * - the earlier text and more (tool calls, then results, added): stored as
 *   what was added only, marked `rewrite: "added"`; the earlier line holds the
 *   rest, so the message reads whole in order and search finds each part once;
 * - other text (Gemini replaced a message's content): stored whole, marked
 *   `rewrite: "changed"`.
 *
 * As with tool names (tool-names.ts), the answer is part of an entry's meta
 * and content, so it depends on the transcript alone: the nearest earlier
 * line with that id starting at most TOOL_LOOKBACK_BYTES before the line.
 * Lines read in this run answer from memory; earlier ones are searched in the
 * file, backwards (chats only grow).
 */
import { TOOL_LOOKBACK_BYTES } from "./limits.ts";
import type { Rendered } from "./render.ts";

/** The message versions of one chat, as one run reads it. */
export interface MessageVersions {
  /** Renders the line starting at `lineStart` as a version of its message. */
  render(text: string, lineStart: number): Rendered;
}

const BLOCK = 256 * 1024;
const NEWLINE = 0x0a;
/** Ids searched for as bytes: JSON writes them unescaped, so their bytes in the file are known. */
const PLAIN_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

interface Version {
  start: number;
  content: string;
}

/** The message id of a rendered Gemini line, when it is a message. */
function messageId(r: Rendered): string | undefined {
  const id = r.meta.message_id;
  return typeof id === "string" && PLAIN_ID.test(id) ? id : undefined;
}

/** Message versions for a run that reads from `runStart` (a line's start) on; `readAt` reads the chat's earlier bytes. */
export function messageVersions(
  readAt: (buf: Uint8Array, offset: number) => number,
  runStart: number,
  render: (text: string) => Rendered,
  opts: { lookback?: number; block?: number } = {},
): MessageVersions {
  const lookback = opts.lookback ?? TOOL_LOOKBACK_BYTES;
  const block = opts.block ?? BLOCK;
  const seen = new Map<string, Version>();
  const absent = new Set<string>();
  return {
    render(text, lineStart) {
      const r = render(text);
      const id = messageId(r);
      if (id === undefined) return r;
      const floor = Math.max(0, lineStart - lookback);
      let prev = seen.get(id);
      // The nearest earlier version is the latest noted; before the run, the file is searched once per id.
      if (prev === undefined && !absent.has(id) && runStart > floor) {
        prev = searchBack(readAt, id, { floor, end: Math.min(runStart, lineStart), block, render });
        if (prev === undefined) absent.add(id);
      }
      seen.set(id, { start: lineStart, content: r.content });
      if (prev === undefined || prev.start < floor) return r;
      return asVersion(r, prev.content);
    },
  };
}

/** A line as a later version of a message whose previous text was `before`. */
function asVersion(r: Rendered, before: string): Rendered {
  if (r.content === before) return { ...r, meta: { ...r.meta, rewrite: "same" }, shape: { ...r.shape, rewrite: true } };
  if (before !== "" && r.content.startsWith(before)) {
    const added = r.content.slice(before.length).replace(/^\n+/, "");
    return { ...r, content: added, meta: { ...r.meta, rewrite: "added" } };
  }
  return { ...r, meta: { ...r.meta, rewrite: before === "" ? "added" : "changed" } };
}

/**
 * The nearest message line in [floor, end) (`end` a line's start) with
 * message id `id`, reading backwards block by block and rendering only the
 * lines that contain the id's bytes.
 */
function searchBack(
  readAt: (buf: Uint8Array, offset: number) => number,
  id: string,
  { floor, end, block: step, render }: { floor: number; end: number; block: number; render: (text: string) => Rendered },
): Version | undefined {
  if (end <= 0) return undefined;
  const needle = Buffer.from(JSON.stringify(id));
  let carry = Buffer.alloc(0);
  let pos = end - 1; // the newline ending the region is left out
  while (pos > 0) {
    const from = Math.max(0, pos - step);
    const chunk = Buffer.alloc(pos - from);
    if (readAt(chunk, from) !== chunk.length) return undefined; // the file changed under us: nothing is known
    const buf = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
    const firstNewline = buf.indexOf(NEWLINE);
    const whole = from === 0 ? 0 : firstNewline + 1;
    if (firstNewline >= 0 || from === 0) {
      for (let hit = buf.lastIndexOf(needle); hit >= whole; ) {
        const lineStart = buf.lastIndexOf(NEWLINE, hit) + 1;
        if (lineStart < whole) break;
        if (from + lineStart < floor) return undefined;
        const lineEnd = buf.indexOf(NEWLINE, hit);
        const r = render(buf.subarray(lineStart, lineEnd < 0 ? buf.length : lineEnd).toString("utf8"));
        if (messageId(r) === id) return { start: from + lineStart, content: r.content };
        if (lineStart === 0) break;
        hit = buf.lastIndexOf(needle, lineStart - 1);
      }
      if (firstNewline >= 0 && from + firstNewline < floor) return undefined;
    }
    carry = firstNewline >= 0 ? buf.subarray(0, firstNewline) : buf;
    pos = from;
  }
  return undefined;
}
