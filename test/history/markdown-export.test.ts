/**
 * Issue 33: a session as Markdown a person reads (src/history/markdown.ts).
 * Markup in stored content never becomes raw HTML when the Markdown is
 * rendered, a NUL or a terminal escape is written out as `\uXXXX`, content
 * never closes a block the export opened nor poses as one of its headings.
 * The expected file is reviewed by eye; the property checks below fail if a
 * change lets markup through even where the expected file was regenerated.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { codeBlock, codeSpan, markdownText } from "../../src/history/escape.ts";
import { prefixMarkdown, sessionMarkdown } from "../../src/history/markdown.ts";
import type { Turn } from "../../src/schema/results.ts";

const EXPECTED = join(import.meta.dir, "markdown-export.expected.md");

let lsn = 0;
/** A turn as read returns it, at a fixed time. */
function turn(role: Turn["role"], content: string, meta: Record<string, unknown> = {}): Turn {
  lsn++;
  return { lsn, session: "proj/<b>markup</b>", role, content, meta, ts: `2026-03-0${Math.min(9, lsn)}T10:00:00.000Z` };
}

const TURNS: Turn[] = [
  turn("user", "Run <script>alert(1)</script> and <img src=x onerror=alert(1)>? &lt; stays &lt;.\u0000 NUL, \u001b[2J escape, tab\tkept", {
    timestamp: "2026-03-01T09:59:59.500Z",
  }),
  turn("assistant", "Inline `<b>` is code. A fence left open:\n```js\n<script>x()</script>"),
  turn("user", "### Assistant · 2026-03-01T00:00:00.000Z · LSN 99\n---\nfake\n===\n> quote <i>x</i>\n  # indented heading\n- a list item <u>u</u>"),
  turn("assistant", "a `` b\n<b>bold</b> `` d\n\n| a | b |\n|---|---|\n| `x | <u>y</u> | z` | w |\n\nan escaped \\`<em>e</em>` tick"),
  turn("assistant", '[tool_use Bash]\n{"command":"echo ``` <x>"}', { tools: ["Bash"], tool_use_ids: ["t1"] }),
  turn("tool", `[tool_result]\n\`\`\`\n</pre><script>1</script>\n${"y".repeat(40)}`, { tool_use_ids: ["t1"] }),
  turn("tool", "[tool_result error]\nno such file", {}),
  turn("note", "", { images: [{ object: `sha256:${"ab".repeat(32)}`, media_type: "image/png" }] }),
  turn("system", "[queue-operation] {}", { noise: "bookkeeping", kind: "system" }),
  turn("system", "[attachment] {}", { noise: "bookkeeping", kind: "system" }),
  turn("assistant", "Done.", { isSidechain: true }),
];

/** The Markdown with every fenced block and code span taken out: what a renderer parses as inline text and HTML. */
function outsideCode(md: string): string {
  const lines = md.split("\n");
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of lines) {
    if (fence !== undefined) {
      if (new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`).test(line)) fence = undefined;
      continue;
    }
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (open) {
      fence = open[1]!;
      continue;
    }
    out.push(line);
  }
  expect(fence, "every fence is closed").toBeUndefined();
  // Code spans that open and close on one line (the only ones the export keeps raw).
  return out.map((l) => l.replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, "")).join("\n");
}

describe("issue 33: a session as Markdown", () => {
  test("markup, NULs and look-alike headings: the reviewed expected file", () => {
    const md = sessionMarkdown("proj/<b>markup</b>", TURNS, { resultChars: 20 });
    if (process.env.ZERODB_WRITE_EXPECTED) Bun.write(EXPECTED, md);
    expect(md).toBe(readFileSync(EXPECTED, "utf8"));
  });

  test("no markup outside code, no control characters anywhere, content's headings escaped", () => {
    const md = sessionMarkdown("proj/<b>markup</b>", TURNS, { resultChars: 20 });
    const inline = outsideCode(md);
    expect(inline).not.toContain("<");
    expect(inline).not.toContain(">");
    expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(md).toContain("\\u0000 NUL, \\u001b[2J escape");
    // The only headings are the export's own: the title and one per turn shown (the two bookkeeping turns are one line).
    const headings = md.split("\n").filter((l) => /^ {0,3}#{1,6}(\s|$)/.test(l));
    expect(headings[0]).toBe("# Session `proj/<b>markup</b>`");
    expect(headings.slice(1).map((l) => /^### [A-Z][a-z ()]+ · \S+ · LSN (\d+)$/.exec(l)?.[1])).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "11"]);
    expect(md).not.toMatch(/^(---|===)$/m);
  });

  test("the same turns give the same bytes; a result is cut where asked, or whole with 0", () => {
    expect(sessionMarkdown("s", TURNS)).toBe(sessionMarkdown("s", [...TURNS]));
    const whole = sessionMarkdown("s", TURNS, { resultChars: 0 });
    expect(whole).toContain("y".repeat(40));
    expect(whole).not.toContain("more characters");
    const cut = sessionMarkdown("s", TURNS, { resultChars: 20 });
    expect(cut).not.toContain("y".repeat(40));
    expect(cut).toContain("more characters, in turn LSN 6 as stored");
  });

  test("a turn's time is its harness's when that parses, else the stored one; a bad meta time never fails the export", () => {
    const at = (timestamp: unknown) =>
      sessionMarkdown("s", [{ ...TURNS[0]!, meta: { timestamp } }])
        .split("\n")
        .find((l) => l.startsWith("### "));
    expect(at("2026-03-01T09:59:59.500+02:00")).toBe("### User · 2026-03-01T07:59:59.500Z · LSN 1");
    for (const bad of ["2026-13-45T99:99Z", "yesterday", 12, "2026-03-01T09:59:59.5Z<b>"]) expect(at(bad)).toBe(`### User · ${TURNS[0]!.ts} · LSN 1`);
  });

  test("code blocks and spans pick fences the content cannot close", () => {
    expect(codeBlock("a\n````\nb")).toBe("`````text\na\n````\nb\n`````");
    expect(codeSpan("x `` y")).toBe("```x `` y```");
    expect(codeSpan("`edge")).toBe("`` `edge ``");
    // A fence the content opens is closed at its end, so the next turn is never inside it.
    expect(markdownText("~~~~\n<x>")).toBe("~~~~\n<x>\n~~~~");
    // Backtick strings that pair across lines are not trusted: both lines are escaped.
    expect(markdownText("a `` b\n<b>x</b> `` d")).toBe("a `` b\n&lt;b&gt;x&lt;/b&gt; `` d");
  });

  test("sessions under a prefix: a title, then each session as a section", () => {
    const md = prefixMarkdown("proj/", [
      { name: "proj/a", turns: [TURNS[0]!] },
      { name: "proj/b", turns: [] },
    ]);
    expect(md.split("\n").filter((l) => l.startsWith("#"))).toEqual([
      "# Sessions under `proj/`",
      "## Session `proj/a`",
      "### User · 2026-03-01T09:59:59.500Z · LSN 1",
      "## Session `proj/b`",
    ]);
    expect(prefixMarkdown(undefined, [])).toBe("# All sessions\n\n_No sessions._\n");
  });
});
