/** The bench's judging and formatting (issue 8): no timings here, only the logic that turns figures into verdicts. */
import { describe, expect, test } from "bun:test";
import { SECTIONS } from "../../scripts/bench/sections.ts";
import type { Figure } from "../../scripts/bench/_lib.ts";
import { fmtRatio } from "../../scripts/bench/report.ts";
import { TARGETS, type Target, judge } from "../../scripts/bench/targets.ts";

const figure = (value: number, extra: Partial<Figure> = {}): Figure => ({ name: "f", value, unit: "ms", ...extra });

describe("judge", () => {
  const onRatio: Target = { what: "w", figure: ["s: a", "t: b"], on: "ratio", op: "<=", limit: 0.5, wanted: "≤ 0.5×" };

  test("a ratio at the limit is met, just past it is missed", () => {
    expect(judge(onRatio, new Map([["s: a", figure(1, { ratio: { of: "x", value: 0.5 } })]])).outcome).toBe("met");
    expect(judge(onRatio, new Map([["s: a", figure(1, { ratio: { of: "x", value: 0.504 } })]])).outcome).toBe("missed");
  });

  test("the first figure present is judged, and a missing figure or ratio is not measured, never met", () => {
    const v = judge(onRatio, new Map([["t: b", figure(1, { ratio: { of: "peer", value: 0.25 } })]]));
    expect({ outcome: v.outcome, ratio: v.ratio, of: v.of }).toEqual({ outcome: "met", ratio: 0.25, of: "peer" });
    expect(judge(onRatio, new Map()).outcome).toBe("not measured");
    expect(judge(onRatio, new Map([["s: a", figure(1)]])).outcome).toBe("not measured");
  });

  test("a value target compares the value, strictly for <", () => {
    const t: Target = { what: "w", figure: ["s: p95"], on: "value", op: "<", limit: 10, wanted: "< 10 ms" };
    expect(judge(t, new Map([["s: p95", figure(9.99)]])).outcome).toBe("met");
    expect(judge(t, new Map([["s: p95", figure(10)]])).outcome).toBe("missed");
    expect(judge(t, new Map([["s: p95", figure(Number.NaN)]])).outcome).toBe("missed");
  });

  test("every target of issues 8, 13, 18, 28, 29 and 32 is in the table once, and each names a figure some section makes", async () => {
    expect(TARGETS.map((t) => t.what)).toHaveLength(new Set(TARGETS.map((t) => t.what)).size);
    expect(TARGETS).toHaveLength(38);
    // Issue 32: a 6-word question at 1M turns under 20 ms and within 3× of FTS5's own BM25 of the same words.
    expect(TARGETS.some((t) => t.figure[0] === "search: 6-word question @1,000,000 p95" && t.on === "value" && t.limit === 20)).toBe(true);
    expect(TARGETS.some((t) => t.figure[0] === "search: 6-word question @1,000,000 p95" && t.on === "ratio" && t.op === "<=" && t.limit === 3)).toBe(true);
    // Issue 32: bytes on disk per MiB of captured transcript, judged on the compression section's figure of today's store.
    expect(
      TARGETS.some((t) => t.figure[0] === "compression: bytes on disk per MiB of transcript, today" && t.on === "value" && t.op === "<=" && t.limit === 800),
    ).toBe(true);
    // Issue 32: each write path judged on its ratio to the reference measured beside it.
    const ratioOf = (figure: string) => TARGETS.filter((t) => t.figure[0] === figure && t.on === "ratio").map((t) => [t.op, t.limit]);
    expect(ratioOf("store: append batches of 64")).toEqual([[">=", 0.5]]);
    expect(ratioOf("store: append durable single-entry")).toContainEqual([">=", 0.7]);
    const backfills = TARGETS.filter((t) => / backfill \(capture sync\)$/.test(t.figure[0]!));
    expect(backfills.map((t) => t.figure[0])).toEqual(
      ["Codex", "Codex (.jsonl.zst)", "Gemini CLI", "opencode", "Claude Code"].map((f) => `harnesses: ${f} backfill (capture sync)`),
    );
    expect(backfills.every((t) => t.on === "ratio" && t.op === ">=" && t.limit === 0.75)).toBe(true);
    // Issue 32: cold start ≥ 8× faster than the reference, peak memory ≤ 0.4× of it, each harness's hook ≤ 6× bun -e 0.
    const limit = (figure: string) => TARGETS.filter((t) => t.figure[0] === figure).map((t) => [t.on, t.op, t.limit]);
    expect(limit("peers: cold start to initialized: zerodb mcp")).toEqual([["ratio", "<=", 1 / 8]]);
    expect(limit("peers: peak RSS @10,000: zerodb mcp")).toEqual([["ratio", "<=", 0.4]]);
    const hooks = TARGETS.filter((t) => t.what.includes("hook p95, 64-entry run, vs bun -e 0"));
    expect(hooks.map((t) => [t.figure[0], t.on, t.op, t.limit])).toEqual(
      [
        "hook: 64-entry catch-up: spawn to exit p95",
        "harnesses: Codex hook, 64-entry run: spawn to exit p95",
        "harnesses: Gemini CLI hook, 64-entry run: spawn to exit p95",
        "harnesses: opencode hook, 64-entry run: spawn to exit p95",
      ].map((f) => [f, "ratio", "<=", 6]),
    );
    // Issue 29: redaction's false positives on ordinary text, judged on the value (none).
    expect(TARGETS.some((t) => t.figure[0] === "redact: false positives on ordinary text" && t.op === "<=" && t.limit === 0)).toBe(true);
    // Issue 28: the real set's figures, each style alone and among 50,000, and the floor.
    expect(TARGETS.filter((t) => t.figure[0]!.startsWith("recall: recall@10 real "))).toHaveLength(6);
    expect(TARGETS.some((t) => t.figure[0] === "recall: figures below stemmed BM25-OR" && t.limit === 0)).toBe(true);
    const sections = new Set((await Promise.all(SECTIONS.map((load) => load()))).map((s) => s.name));
    for (const t of TARGETS) expect(sections.has(t.figure[0]!.split(":")[0]!), t.what).toBe(true);
  });
});

describe("fmtRatio", () => {
  test("three significant digits, and 'faster' only for times below 1", () => {
    expect(fmtRatio(0.5039, "MiB", "peer")).toBe("0.504× peer");
    expect(fmtRatio(0.02, "ms", "peer")).toBe("0.0200× peer (50.0× faster)");
    expect(fmtRatio(97.2, "calls/s", "peer")).toBe("97.2× peer");
    expect(fmtRatio(1234.5, "calls/s", "peer")).toBe("1,235× peer");
  });
});
