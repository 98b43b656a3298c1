/**
 * Stored text made safe inside Markdown (DESIGN.md section 17): whatever a
 * turn holds can never become raw HTML when the Markdown is rendered
 * (CommonMark 0.31, https://spec.commonmark.org/0.31.2/), never close a block
 * the export opened, never pose as one of the export's own headings, and
 * never carry a control character (a NUL, a terminal escape) to whoever
 * reads the file.
 */

/** C0 and C1 controls and DEL, but tab and line feed: shown as `\uXXXX` (a backslash before a letter is literal in Markdown). */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` with every control but tab and line feed written as `\uXXXX`. */
export function escapeControls(text: string): string {
  return text.toWellFormed().replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The characters that start HTML or an entity (CommonMark 6.6, 6.10): written as entities, shown as themselves. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}

/**
 * A line of prose whose first character would make it a heading, a setext
 * underline or a thematic break gets a backslash before it (CommonMark 2.4):
 * content never shows as one of the export's headings or separators.
 */
const BLOCK_START = /^( {0,3})(#|=+[ \t]*$|([-*_])([ \t]*\3){2,}[ \t]*$)/;

/** A code span a line holds: where it starts and ends (exclusive), fences included. */
interface Span {
  start: number;
  end: number;
}

/**
 * The code spans of one line, left to right as CommonMark 6.1 pairs backtick
 * strings (the first string of the same length closes one), or undefined when
 * a backtick string of the line is left open or escaped: then the line's
 * spans might pair with another line's, and none is trusted.
 */
function lineSpans(line: string): Span[] | undefined {
  const spans: Span[] = [];
  let i = 0;
  for (;;) {
    const tick = line.indexOf("`", i);
    if (tick < 0) return spans;
    if (tick > 0 && line[tick - 1] === "\\") return undefined;
    let run = tick;
    while (run < line.length && line[run] === "`") run++;
    const close = closingRun(line, run, run - tick);
    if (close < 0) return undefined;
    spans.push({ start: tick, end: close + (run - tick) });
    i = close + (run - tick);
  }
}

/** Where the next backtick string of exactly `len` backticks starts from `from`, or -1. */
function closingRun(line: string, from: number, len: number): number {
  let j = from;
  while (j < line.length) {
    const t = line.indexOf("`", j);
    if (t < 0) return -1;
    let e = t;
    while (e < line.length && line[e] === "`") e++;
    if (e - t === len) return t;
    j = e;
  }
  return -1;
}

/**
 * A paragraph's lines (no blank line, no fence among them) as Markdown: the
 * HTML-significant characters as entities, but inside code spans, whose text
 * is literal. Spans are kept only when every backtick string of the
 * paragraph pairs on its own line, so no inline context (a paragraph, a list
 * item: always whole lines) can pair them otherwise, and only spans without a
 * `|`, which a GFM table row would split first. Anything else is escaped:
 * safe, if less pretty inside a span.
 */
function prose(lines: string[]): string[] {
  const spans = lines.map(lineSpans);
  const trusted = spans.every((s) => s !== undefined);
  return lines.map((line, n) => {
    const kept = trusted ? spans[n]!.filter((s) => !line.slice(s.start, s.end).includes("|")) : [];
    let out = "";
    let at = 0;
    for (const s of kept) {
      out += escapeHtml(line.slice(at, s.start)) + line.slice(s.start, s.end);
      at = s.end;
    }
    return out + escapeHtml(line.slice(at));
  });
}

/** An opening code fence (CommonMark 4.5): up to three spaces, then three or more backticks (no backtick in the info) or tildes. */
const FENCE_OPEN = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;

/**
 * A turn's text as Markdown: prose escaped line by line, the text's own fenced
 * code blocks kept as they are (their text is literal), and a block the text
 * leaves open closed at its end, so it never runs into the next turn.
 */
export function markdownText(text: string): string {
  const lines = escapeControls(text).split("\n");
  const out: string[] = [];
  let para: string[] = [];
  const flush = () => {
    out.push(...prose(para));
    para = [];
  };
  let fence: { char: string; len: number } | undefined;
  for (const line of lines) {
    if (fence) {
      out.push(line);
      const m = /^ {0,3}(`+|~+)[ \t]*$/.exec(line);
      if (m && m[1]![0] === fence.char && m[1]!.length >= fence.len) fence = undefined;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open) {
      flush();
      fence = { char: open[1]![0]!, len: open[1]!.length };
      out.push(line);
      continue;
    }
    if (line.trim() === "") {
      flush();
      out.push(line);
      continue;
    }
    const m = BLOCK_START.exec(line);
    para.push(m ? `${m[1]}\\${line.slice(m[1]!.length)}` : line);
  }
  flush();
  if (fence) out.push(fence.char.repeat(fence.len));
  return out.join("\n");
}

/** The longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let best = 0;
  let n = 0;
  for (const c of text) {
    n = c === char ? n + 1 : 0;
    if (n > best) best = n;
  }
  return best;
}

/** `text` as a fenced code block whose fence no line of the text can close (CommonMark 4.5); its text is literal. */
export function codeBlock(text: string, info = "text"): string {
  const body = escapeControls(text);
  const fence = "`".repeat(Math.max(3, longestRun(body, "`") + 1));
  return `${fence}${info}\n${body}${body.endsWith("\n") || body === "" ? "" : "\n"}${fence}`;
}

/** `text` on one line as a code span that no backtick inside it can close (CommonMark 6.1); its text is literal. */
export function codeSpan(text: string): string {
  const body = escapeControls(text).replace(/\s+/g, " ");
  const ticks = "`".repeat(longestRun(body, "`") + 1);
  // A space on each side keeps a backtick (or a space) at either end of the text from joining the fence; CommonMark strips one.
  const pad = /^[` ]|[` ]$/.test(body) || body === "" ? " " : "";
  return `${ticks}${pad}${body}${pad}${ticks}`;
}
