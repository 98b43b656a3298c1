/**
 * Which tool a tool_result answers. The result names only its tool_use_id;
 * the name is in the tool_use block of an earlier line. The answer goes into
 * the entry's meta (turn-kind.ts), and meta is part of an entry's idempotency
 * check (I3), so it must not depend on where a run happened to start: it is
 * defined by the transcript alone, as the tool_use with that id in the
 * nearest earlier line that starts at most TOOL_LOOKBACK_BYTES before the
 * result's line. Lines read in this run answer from memory; lines before the
 * run's first are searched in the file, backwards (transcripts only grow).
 */
import type { ToolUse } from "./turn-kind.ts";
import { TOOL_LOOKBACK_BYTES } from "./limits.ts";
import { type Rendered, renderLine } from "./render.ts";

/** The tool names of one transcript, as one run reads it. */
export interface ToolNames {
  /** The tool of the tool_use `id` answered in the line starting at `lineStart`, or undefined. */
  name(id: string, lineStart: number): string | undefined;
  /** Records the tool_use blocks of a line read in this run (in file order). */
  note(uses: ToolUse[], lineStart: number): void;
}

/** Bytes read per step of the backward search. */
const BLOCK = 256 * 1024;
const NEWLINE = 0x0a;
/** Ids searched for as bytes: JSON writes them unescaped, so their bytes in the file are known. */
const PLAIN_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/** How far back to look, and in what steps (tests make both small). */
export interface ToolNamesOptions {
  lookback?: number;
  block?: number;
  /** The harness's line renderer; Claude Code's when absent. */
  render?: (text: string) => Rendered;
}

/**
 * Tool names for a run that reads from `runStart` (a line's start) on;
 * `readAt` reads the transcript's earlier bytes.
 */
export function toolNames(readAt: (buf: Uint8Array, offset: number) => number, runStart: number, opts: ToolNamesOptions = {}): ToolNames {
  const lookback = opts.lookback ?? TOOL_LOOKBACK_BYTES;
  const block = opts.block ?? BLOCK;
  const seen = new Map<string, { name: string; start: number }>();
  const absent = new Set<string>();
  return {
    name(id, lineStart) {
      if (!PLAIN_ID.test(id)) return undefined;
      const floor = Math.max(0, lineStart - lookback);
      const known = seen.get(id);
      // The nearest earlier tool_use of the id is the latest noted: when it is out of reach, so is every other.
      if (known) return known.start >= floor ? known.name : undefined;
      // The floor only rises from line to line: an id not found before the run stays not found.
      if (absent.has(id) || runStart <= floor) return undefined;
      const found = searchBack(readAt, id, { floor, end: Math.min(runStart, lineStart), block, render: opts.render ?? renderLine });
      if (found) seen.set(id, found);
      else absent.add(id);
      return found?.name;
    },
    note(uses, lineStart) {
      for (const u of uses) if (PLAIN_ID.test(u.id)) seen.set(u.id, { name: u.name, start: lineStart });
    },
  };
}

/**
 * The nearest line in [floor, end) (`end` a line's start) whose tool_use
 * blocks include `id`, reading backwards block by block and parsing only the
 * lines that contain the id's bytes.
 */
function searchBack(
  readAt: (buf: Uint8Array, offset: number) => number,
  id: string,
  { floor, end, block: step, render }: { floor: number; end: number; block: number; render: (text: string) => Rendered },
): { name: string; start: number } | undefined {
  if (end <= 0) return undefined;
  const needle = Buffer.from(JSON.stringify(id));
  // The bytes after `pos` not yet searched: the end of a line whose start is further back. The newline ending the region is left out.
  let carry = Buffer.alloc(0);
  let pos = end - 1;
  while (pos > 0) {
    const from = Math.max(0, pos - step);
    const block = Buffer.alloc(pos - from);
    const n = readAt(block, from);
    if (n !== block.length) return undefined; // the file changed under us: nothing is known
    const buf = carry.length > 0 ? Buffer.concat([block, carry]) : block;
    const firstNewline = buf.indexOf(NEWLINE);
    // Lines wholly inside buf: every one after its first newline, and the first too once the file's start is reached.
    const whole = from === 0 ? 0 : firstNewline + 1;
    if (firstNewline >= 0 || from === 0) {
      for (let hit = buf.lastIndexOf(needle); hit >= whole; ) {
        const lineStart = buf.lastIndexOf(NEWLINE, hit) + 1;
        if (lineStart < whole) break;
        if (from + lineStart < floor) return undefined;
        const lineEnd = buf.indexOf(NEWLINE, hit);
        const text = buf.subarray(lineStart, lineEnd < 0 ? buf.length : lineEnd).toString("utf8");
        const use = render(text).shape.uses.find((u) => u.id === id);
        if (use) return { name: use.name, start: from + lineStart };
        if (lineStart === 0) break;
        hit = buf.lastIndexOf(needle, lineStart - 1);
      }
      // Every line starting at or after the floor has been searched once a newline before the floor is seen.
      if (firstNewline >= 0 && from + firstNewline < floor) return undefined;
    }
    carry = firstNewline >= 0 ? buf.subarray(0, firstNewline) : buf;
    pos = from;
  }
  return undefined;
}
