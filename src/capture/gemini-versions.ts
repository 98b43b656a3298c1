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
 * line of that message (a line starting `{"id":"<id>"`, as Gemini writes
 * one) starting at most TOOL_LOOKBACK_BYTES before the line. Lines read in
 * this run answer from memory; for earlier ones the window before the run is
 * read forward once, looking at each line's first bytes, and only a line
 * found there is parsed (chats only grow).
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
  // Where each message id last starts a line in the window before the run, found once, at the first message read.
  let before: Map<string, number> | undefined;
  return {
    render(text, lineStart) {
      const r = render(text);
      const id = messageId(r);
      // Only lines as Gemini writes messages (id first) count, in the run as before it (lineStartsById).
      if (id === undefined || !text.startsWith('{"id":"')) return r;
      const floor = Math.max(0, lineStart - lookback);
      let prev = seen.get(id);
      if (prev === undefined) {
        before ??= lineStartsById(readAt, Math.max(0, runStart - lookback), runStart, block);
        const at = before.get(id);
        if (at !== undefined && at >= floor) {
          const line = readLine(readAt, at, runStart);
          if (line !== undefined) {
            const earlier = render(line);
            if (messageId(earlier) === id) prev = { start: at, content: earlier.content };
          }
        }
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

/** The head of a message line as Gemini writes it (`JSON.stringify` of a message puts its id first). */
const HEAD = Buffer.from('{"id":"');

/**
 * For the lines starting in [floor, end) (`end` a line's start): where each
 * message id last starts one, read forward once, looking only at each line's
 * first bytes (a line written otherwise is not found: its message has no
 * earlier version, the same answer whatever the run).
 */
function lineStartsById(readAt: (buf: Uint8Array, offset: number) => number, floor: number, end: number, step: number): Map<string, number> {
  const out = new Map<string, number>();
  if (end <= floor) return out;
  // A line starts at the floor only when the byte before it ends a line.
  let pos = floor;
  let atLineStart = floor === 0;
  if (!atLineStart) {
    const b = new Uint8Array(1);
    atLineStart = readAt(b, floor - 1) === 1 && b[0] === NEWLINE;
  }
  // Room for a whole line head (`{"id":"` + 200 bytes of id + its quote) in every block.
  const buf = Buffer.alloc(Math.max(step, 4096));
  while (pos < end) {
    const n = readAt(buf.subarray(0, Math.min(buf.length, end - pos)), pos);
    if (n <= 0) break;
    let i = 0;
    while (i < n) {
      if (atLineStart) {
        // A head cut by the block's end is read again from the next block, which starts at this line.
        if (n - i < HEAD.length + 202 && pos + n < end && i > 0) break;
        if (buf.subarray(i, i + HEAD.length).equals(HEAD)) {
          const quote = buf.indexOf(0x22, i + HEAD.length);
          if (quote >= 0 && quote < n) {
            const id = buf.subarray(i + HEAD.length, quote).toString("utf8");
            if (PLAIN_ID.test(id)) out.set(id, pos + i);
          }
        }
        atLineStart = false;
      }
      const nl = buf.indexOf(NEWLINE, i);
      if (nl < 0 || nl >= n) {
        i = n;
        break;
      }
      i = nl + 1;
      atLineStart = true;
    }
    pos += i;
  }
  return out;
}

/** The line starting at `start` (before `end`), or undefined when it does not end before `end`. */
function readLine(readAt: (buf: Uint8Array, offset: number) => number, start: number, end: number): string | undefined {
  const parts: Buffer[] = [];
  for (let pos = start; pos < end; ) {
    const buf = Buffer.alloc(Math.min(BLOCK, end - pos));
    const n = readAt(buf, pos);
    if (n <= 0) return undefined;
    const nl = buf.subarray(0, n).indexOf(NEWLINE);
    if (nl >= 0) {
      parts.push(buf.subarray(0, nl));
      return Buffer.concat(parts).toString("utf8");
    }
    parts.push(buf.subarray(0, n));
    pos += n;
  }
  return undefined;
}
