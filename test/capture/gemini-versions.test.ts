/**
 * Gemini message versions (gemini-versions.ts) depend on the chat alone:
 * whichever line a run starts at, and however blocks cut the window read
 * before it, each line gets the same answer; a version further back than
 * the lookback is a message of its own.
 */
import { describe, expect, test } from "bun:test";
import { messageVersions } from "../../src/capture/gemini-versions.ts";
import { memoryLines } from "../../src/capture/lines.ts";
import { renderGeminiLine } from "../../src/capture/render-gemini.ts";
import { jsonl } from "./_fixtures.ts";
import { chatHead, msg } from "./_gemini.ts";

/** Each line's content and rewrite mark, for a run starting at line `from` (lines before it are the file's). */
function read(text: string, from: number, opts: { lookback?: number; block?: number } = {}) {
  const bytes = new TextEncoder().encode(text);
  const reader = memoryLines(bytes);
  const lines = [...reader.lines(0)];
  const v = messageVersions((buf, off) => reader.readAt(buf, off), lines[from]!.start, renderGeminiLine, opts);
  return lines.slice(from).map((l) => {
    const r = v.render(new TextDecoder().decode(l.bytes), l.start);
    return [r.content, r.meta.rewrite ?? null, r.shape.rewrite ?? false];
  });
}

describe("Gemini message versions", () => {
  const padding = "x".repeat(5000);
  const g1 = msg.gemini("g1", `the answer ${padding}`);
  const call = { id: "c1", name: "run_shell_command", args: { command: "ls" }, status: "success", result: "a b" };
  const lines = [
    chatHead("s"),
    msg.user("u1", `a question ${padding}`),
    g1,
    { $set: { lastUpdated: "now" } },
    { ...g1, tokens: { total: 1 } },
    msg.user("u2", "more"),
    { ...g1, toolCalls: [call] },
    msg.gemini("g2", "bye"),
  ];
  const text = lines.map(jsonl).join("");

  test("every run start and block size gives the same versions", () => {
    const whole = read(text, 0);
    expect(whole.map((x) => x[1])).toEqual([null, null, null, null, "same", null, "added", null]);
    expect(whole[6]![0]).toBe('[tool_use run_shell_command]\n{"command":"ls"}\n\n[tool_result]\na b');
    expect(whole[4]![2]).toBe(true);
    for (let from = 1; from < lines.length; from++)
      for (const block of [4096, 5003, 1 << 20]) expect([from, block, read(text, from, { block })]).toEqual([from, block, whole.slice(from)]);
  });

  test("an earlier version further back than the lookback is not one: the line is a message of its own, whatever the run", () => {
    const spread = [
      chatHead("s"),
      msg.user("u1", "q"),
      g1,
      msg.user("u2", "more"),
      { ...g1, tokens: { total: 1 } },
      { $set: { lastUpdated: "now" } },
      { ...g1, toolCalls: [call] },
    ];
    const t = spread.map(jsonl).join("");
    // Line 6 reaches back to line 4 (its start exactly), line 4 not to line 2.
    const lookback = Buffer.byteLength(jsonl(spread[4])) + Buffer.byteLength(jsonl(spread[5]));
    const whole = read(t, 0, { lookback });
    expect(whole.map((x) => x[1])).toEqual([null, null, null, null, null, null, "added"]);
    for (let from = 1; from < spread.length; from++) expect(read(t, from, { lookback })).toEqual(whole.slice(from));
    // With room enough, line 4 is the same text as line 2.
    expect(read(t, 0).map((x) => x[1])).toEqual([null, null, null, null, "same", null, "added"]);
  });
});
