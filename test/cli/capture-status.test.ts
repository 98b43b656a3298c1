/** `capture status` for people (issue 17, item 9): the zerodb session beside Claude Code's id, in aligned columns. */
import { describe, expect, test } from "bun:test";
import type { StatusRow } from "../../src/capture/sync.ts";
import { renderStatus } from "../../src/cli/commands/capture-status.ts";

const row = (source: string, capture_session: string | null, captured: number, behind: number, extra: Partial<StatusRow> = {}): StatusRow => ({
  source,
  harness: "claude-code",
  capture_session,
  transcript: `/t/${source}.jsonl`,
  lines_captured: captured,
  lines_behind: behind,
  ...extra,
});

describe("capture status rendering", () => {
  test("columns line up; a row without a cursor says so; a deleted transcript is marked", () => {
    const rows = [
      row("aaaa", "app-1a2b3c4d/0123456789abcdef", 12, 0),
      row("bbbb", null, 0, 3),
      row("cccc", "app-1a2b3c4d/fedcba9876543210", 4, 0, { missing: true }),
    ];
    expect(renderStatus(rows, { verbose: false }).split("\n")).toEqual([
      "zerodb session                 harness session  captured  behind",
      "app-1a2b3c4d/0123456789abcdef  aaaa             12        0",
      "(not captured yet)             bbbb             0         3",
      "app-1a2b3c4d/fedcba9876543210  cccc             4         0  (transcript deleted)",
      "3 line(s) behind: run `zerodb capture sync`",
    ]);
  });

  test("--verbose adds the transcript path; nothing behind says all captured; no transcripts says so", () => {
    expect(renderStatus([row("aaaa", "s/1", 1, 0)], { verbose: true }).split("\n")).toEqual([
      "zerodb session  harness session  captured  behind  transcript",
      "s/1             aaaa             1         0       /t/aaaa.jsonl",
      "all captured",
    ]);
    expect(renderStatus([], { verbose: false })).toBe("no Claude Code, Codex, Gemini CLI or opencode transcripts found");
  });
});
