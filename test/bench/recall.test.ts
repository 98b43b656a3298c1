/** The labelled retrieval set must measure what it claims: one turn per label, none in the distractors, a fixed split. */
import { describe, expect, test } from "bun:test";
import { distractors } from "../../scripts/bench/recall/distractors.ts";
import { QUERIES } from "../../scripts/bench/recall/queries.ts";
import { SESSIONS, readableTurns, transcriptJsonl, transcriptLines } from "../../scripts/bench/recall/transcripts.ts";

const STYLES = ["keyword", "question", "paraphrase"] as const;

describe("recall set", () => {
  test("every answer is 12+ characters, JSON-plain, and in exactly one readable turn", () => {
    const turns = SESSIONS.flatMap(readableTurns);
    const wrong = QUERIES.filter((q) => q.answer.length < 12 || /["\\\u0000-\u001f]/.test(q.answer) || turns.filter((t) => t.includes(q.answer)).length !== 1);
    expect(wrong.map((q) => q.answer)).toEqual([]);
  });

  test("every answer is in exactly one serialized message line, so today's JSON rendering holds it too", () => {
    const lines = SESSIONS.flatMap((s) =>
      transcriptLines(s)
        .filter((l) => l.type === "user" || l.type === "assistant")
        .map((l) => JSON.stringify(l.message)),
    );
    expect(QUERIES.filter((q) => lines.filter((l) => l.includes(q.answer)).length !== 1).map((q) => q.answer)).toEqual([]);
  });

  test("no distractor holds an answer, and few draws had to be replaced for it", () => {
    const answers = QUERIES.map((q) => q.answer);
    const holds = (d: { content: string }) => answers.some((a) => d.content.includes(a));
    expect(distractors(4_000, answers).filter(holds)).toEqual([]);
    expect(distractors(4_000).filter(holds).length).toBeLessThan(40);
  });

  test("at least 120 queries, 40 per style, both splits in each, queries distinct", () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(120);
    expect(new Set(QUERIES.map((q) => q.query)).size).toBe(QUERIES.length);
    for (const style of STYLES) {
      const of = QUERIES.filter((q) => q.style === style);
      expect(of.length).toBeGreaterThanOrEqual(40);
      expect(of.filter((q) => q.split === "tune").length).toBeGreaterThan(of.length / 4);
      expect(of.filter((q) => q.split === "heldout").length).toBeGreaterThan(of.length / 4);
    }
  });

  test("some queries and sessions are in Japanese or Chinese", () => {
    const cjk = /[\u3040-\u30ff\u4e00-\u9fff]/;
    expect(QUERIES.filter((q) => cjk.test(q.query)).length).toBeGreaterThanOrEqual(10);
    expect(SESSIONS.filter((s) => readableTurns(s).some((t) => cjk.test(t))).length).toBeGreaterThanOrEqual(2);
  });

  test("the transcripts are Claude Code JSONL: lines parse, messages chain by parentUuid, tool results answer tool calls", () => {
    let lines = 0;
    for (const s of SESSIONS) {
      const parsed = transcriptJsonl(s)
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, any>);
      lines += parsed.length;
      const uuids = new Set(parsed.filter((l) => l.uuid).map((l) => l.uuid));
      expect(parsed.filter((l) => l.uuid && l.parentUuid !== null && !uuids.has(l.parentUuid))).toEqual([]);
      const calls = new Set(
        parsed
          .flatMap((l) => (Array.isArray(l.message?.content) ? l.message.content : []))
          .filter((b: any) => b.type === "tool_use")
          .map((b: any) => b.id),
      );
      const results = parsed.flatMap((l) => (Array.isArray(l.message?.content) ? l.message.content : [])).filter((b: any) => b.type === "tool_result");
      expect(results.length).toBe(calls.size);
      expect(results.every((b: any) => calls.has(b.tool_use_id))).toBe(true);
      expect(new Set(parsed.map((l) => l.type))).toEqual(
        new Set(["queue-operation", "user", "file-history-snapshot", "attachment", "assistant", "last-prompt"]),
      );
    }
    expect(SESSIONS.length).toBeGreaterThanOrEqual(8);
    expect(lines).toBeGreaterThanOrEqual(300);
  });

  test("the generators are deterministic", () => {
    expect(SESSIONS.map(transcriptJsonl)).toEqual(SESSIONS.map(transcriptJsonl));
    expect(distractors(500)).toEqual(distractors(500));
  });
});
