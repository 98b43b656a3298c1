/**
 * Oversized tool results (DESIGN.md section 9): a result over the inline
 * budget is written to a private file and replaced by a head-and-tail preview
 * with a notice saying where the rest is. Spilling never fails a call: when
 * anything goes wrong the result stays inline and one warning is logged.
 */
import { join } from "node:path";
import { sha256Hex } from "../util/hash.ts";
import { type SpillFs, ensureSpillDir, realFs, writeNewPrivateFile } from "./file.ts";
import { randomPart, safeName } from "./name.ts";
import { headTailPreview } from "./preview.ts";

/** How a spiller is set up. */
export interface SpillOptions {
  /** The spill root (config `spill_root`, default `<home>/spill`). */
  root: string;
  /** Who the spills belong to (tenant and MCP connection); only its hash reaches the file system. */
  owner: string;
  /** Results over this many UTF-8 bytes are spilled; the replacement never exceeds it. */
  maxInlineBytes: number;
  /** The random part of file names: 12 base64url characters (injectable for tests). */
  random?: () => string;
  /** File system calls (injectable for tests). */
  fs?: SpillFs;
  /** Where the one warning of a failed spill goes (stderr in `zerodb mcp`). */
  warn?: (message: string) => void;
}

/** One text to spill if it is too large. */
export interface SpillRequest {
  /** A name for the file, made safe before use (e.g. the tool's name). */
  name: string;
  /** One sentence telling the reader how to open the file, naming their file-reading tool. */
  hint?: string;
}

/** Where a spilled result went. */
export interface SpillRecord {
  path: string;
  bytes: number;
  omitted_bytes: number;
}

/** The text to send, and where the full text is when it was spilled. */
export interface SpillOutcome {
  text: string;
  spill?: SpillRecord;
}

/** Spills oversized texts of one owner. */
export interface Spiller {
  /** The owner's directory: `<root>/session-<sha256 hex of the owner>`. */
  readonly dir: string;
  /** Returns `text` unchanged when it fits, else a preview pointing at the file holding it. */
  apply(text: string, request: SpillRequest): SpillOutcome;
}

/** The hint when the caller knows no better. */
export const DEFAULT_HINT = "Open that file with your file-reading tool to see the part left out here.";

const RANDOM_RE = /^[A-Za-z0-9_-]{12}$/;

/** Creates the spiller of one owner. */
export function createSpiller(opts: SpillOptions): Spiller {
  const sub = `session-${sha256Hex(opts.owner)}`;
  const dir = join(opts.root, sub);
  const random = opts.random ?? randomPart;
  const fs = opts.fs ?? realFs;
  const warn = opts.warn ?? (() => {});

  const apply = (text: string, request: SpillRequest): SpillOutcome => {
    const size = Buffer.byteLength(text, "utf8");
    if (size <= opts.maxInlineBytes) return { text };
    // A lone surrogate has no UTF-8 encoding: such a text is not spilled, it stays whole.
    if (!text.isWellFormed()) return { text };
    const rand = random();
    const path = join(dir, `${rand}-${safeName(request.name)}`);
    const hint = request.hint ?? DEFAULT_HINT;
    const notice = (omitted: number) =>
      // The path ends its line, so no punctuation can be mistaken for part of it.
      `\n\n[zerodb: ${omitted} of ${size} bytes are omitted here; the full result is in\n${path}\n${hint}]\n\n`;
    const bytes = Buffer.from(text, "utf8");
    const preview = headTailPreview(bytes, opts.maxInlineBytes, notice);
    try {
      if (!RANDOM_RE.test(rand)) throw new Error("the random part of the name is not 12 base64url characters");
      if (!preview) throw new Error(`the notice alone is over the ${opts.maxInlineBytes}-byte inline budget`);
      ensureSpillDir(opts.root, sub);
      writeNewPrivateFile(path, bytes, fs);
    } catch (err) {
      warn(`could not spill a ${size}-byte result to ${path} (${(err as Error)?.message ?? err}); it was kept inline`);
      return { text };
    }
    return { text: preview.text, spill: { path, bytes: size, omitted_bytes: preview.omittedBytes } };
  };

  return { dir, apply };
}
