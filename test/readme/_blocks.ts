/**
 * The shell blocks of README.md and docs/ (issue 31), with what the HTML
 * comments right before each say about running it. A reader sees none of
 * these comments; the test reads them:
 *
 *   <!-- not run: needs the network -->            the block is skipped, listed by this reason
 *   <!-- run after: zerodb append --session a/b x --> shell run first, in the same home, unseen by the reader
 *   <!-- run with a server at http://127.0.0.1:7077, token alice.tok -->
 *                                                   a loopback `zerodb serve` stands in for that URL (the
 *                                                   block's text is run with the server's own URL), and
 *                                                   FILE holds a token of it for the tenant its name
 *                                                   starts with (alice.tok: alice)
 *
 * docs/decisions/ is a log of what was decided, not instructions: left out.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");

/** What a block needs to run: a server standing in for `url`, with a token in `tokenFile`. */
export interface ServerNeed {
  url: string;
  tokenFile: string;
  tenant: string;
}

/** One shell block of a page. */
export interface Block {
  /** `docs/http.md:19`: the page and the line of the opening fence. */
  where: string;
  script: string;
  /** Set when the page marks the block `not run`: why. */
  notRun?: string;
  /** Shell run first, in the same home (`run after:`). */
  before: string[];
  servers: ServerNeed[];
  /** A comment beginning `run` or `not run` that none of the forms above reads. */
  unreadable: string[];
}

const FENCE = /^```(sh|bash|console|shell)[ \t]*$/;

/** README.md and every page under docs/ but docs/decisions/, relative to the root, sorted. */
export function docPages(root = ROOT): string[] {
  const docs = [...new Bun.Glob("docs/**/*.md").scanSync({ cwd: root })].map((p) => p.split("\\").join("/")).filter((p) => !p.startsWith("docs/decisions/"));
  return ["README.md", ...docs.sort()];
}

/** The shell blocks of one page's text, each with the comments that stand right before it. */
export function blocksOf(page: string, text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("```") && !FENCE.test(line)) {
      // Another language's block: step over it so its lines are not read as fences.
      i = closing(lines, i);
      continue;
    }
    if (!FENCE.test(line)) continue;
    const end = closing(lines, i);
    const block: Block = { where: `${page}:${i + 1}`, script: lines.slice(i + 1, end).join("\n"), before: [], servers: [], unreadable: [] };
    for (const comment of commentsBefore(lines, i)) read(comment, block);
    blocks.push(block);
    i = end;
  }
  return blocks;
}

/** The index of the fence that closes the block opened at `open` (the last line when none does). */
function closing(lines: string[], open: number): number {
  // A closing fence has no info string (CommonMark 4.5): "```sh" inside a block is its text.
  for (let j = open + 1; j < lines.length; j++) if (/^```\s*$/.test(lines[j]!)) return j;
  return lines.length - 1;
}

/** The `<!-- ... -->` comments (each may span lines) directly above line `at`, blank lines allowed between. */
function commentsBefore(lines: string[], at: number): string[] {
  const found: string[] = [];
  let j = at - 1;
  while (j >= 0) {
    if (lines[j]!.trim() === "") {
      j--;
      continue;
    }
    if (!lines[j]!.trimEnd().endsWith("-->")) break;
    let k = j;
    while (k >= 0 && !lines[k]!.trimStart().startsWith("<!--")) k--;
    if (k < 0) break;
    found.unshift(
      lines
        .slice(k, j + 1)
        .join("\n")
        .trim()
        .replace(/^<!--\s*/, "")
        .replace(/\s*-->$/, ""),
    );
    j = k - 1;
  }
  return found;
}

/** Reads one comment into the block; a comment that is not about running is left alone. */
function read(comment: string, block: Block): void {
  let m = /^not run: (.+)$/s.exec(comment);
  if (m) {
    block.notRun = m[1]!.trim();
    return;
  }
  m = /^run after: (.+)$/s.exec(comment);
  if (m) {
    block.before.push(m[1]!.trim());
    return;
  }
  m = /^run with a server at (\S+), token (\S+)$/.exec(comment);
  if (m) {
    const tokenFile = m[2]!;
    const tenant = /^[a-z0-9]+/.exec(tokenFile.replace(/^.*\//, ""))?.[0];
    if (tenant) block.servers.push({ url: m[1]!, tokenFile, tenant });
    else block.unreadable.push(comment);
    return;
  }
  if (/^(not )?run\b/.test(comment)) block.unreadable.push(comment);
}

/** Every shell block of the documentation. */
export function allBlocks(root = ROOT): Block[] {
  return docPages(root).flatMap((page) => blocksOf(page, readFileSync(join(root, page), "utf8")));
}
