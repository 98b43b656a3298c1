/**
 * parseHookEvent (src/capture/event.ts) takes a plainly good hook input as
 * it is and hands everything else to the hook event schema: it must never
 * accept what the schema refuses, and a refusal is the schema's own error.
 */
import { describe, expect, test } from "bun:test";
import { hookEventSchema, parseHookEvent, plainlyGoodEvent } from "../../src/capture/event.ts";
import { parseInput } from "../../src/schema/parse.ts";

function outcome(fn: () => unknown): { ok: unknown } | { code?: string; field?: string; message?: string } {
  try {
    return { ok: fn() };
  } catch (e) {
    const err = e as { code?: string; field?: string; message?: string };
    return { code: err.code, field: err.field, message: err.message };
  }
}

const GOOD = { session_id: "s1", transcript_path: "/t/s1.jsonl", cwd: "/w", hook_event_name: "Stop", stop_hook_active: false };

const CASES: [string, unknown][] = [
  ["as Claude Code sends it", GOOD],
  ["with every optional field", { ...GOOD, source: "startup", reason: "exit", agent_id: "a1", agent_transcript_path: "/t/a.jsonl" }],
  ["with unknown fields of any type", { ...GOOD, extra: { deep: [1, null] }, n: 3 }],
  ["no session_id", { ...GOOD, session_id: undefined }],
  ["an empty session_id", { ...GOOD, session_id: "" }],
  ["a session_id of 1025", { ...GOOD, session_id: "s".repeat(1025) }],
  ["a session_id of 1024", { ...GOOD, session_id: "s".repeat(1024) }],
  ["a numeric cwd", { ...GOOD, cwd: 7 }],
  ["a transcript_path of 4097", { ...GOOD, transcript_path: "p".repeat(4097) }],
  ["an empty hook_event_name", { ...GOOD, hook_event_name: "" }],
  ["a hook_event_name of 65", { ...GOOD, hook_event_name: "E".repeat(65) }],
  ["a numeric source", { ...GOOD, source: 1 }],
  ["a null reason", { ...GOOD, reason: null }],
  ["an object agent_id", { ...GOOD, agent_id: {} }],
  ["an array", [GOOD]],
  ["a string", "Stop"],
  ["null", null],
  ["a number", 3],
];

describe("parseHookEvent", () => {
  test("accepts and refuses exactly as the hook event schema does, with its error", () => {
    for (const [what, input] of CASES) {
      const text = JSON.stringify(input);
      const expected = outcome(() => parseInput(hookEventSchema(), JSON.parse(text), "hook input"));
      expect({ what, got: outcome(() => parseHookEvent(text)) }).toEqual({ what, got: expected });
      // Only input the schema accepts skips it.
      if (plainlyGoodEvent(JSON.parse(text))) expect({ what, ok: "ok" in expected }).toEqual({ what, ok: true });
    }
    expect(plainlyGoodEvent(GOOD)).toBe(true);
    expect(CASES.filter(([, v]) => plainlyGoodEvent(JSON.parse(JSON.stringify(v)))).length).toBe(4);
  });

  test("input that is not JSON is refused naming stdin; a bad field is named under hook input", () => {
    expect(outcome(() => parseHookEvent("{"))).toMatchObject({ code: "invalid_input", field: "stdin" });
    expect(outcome(() => parseHookEvent(JSON.stringify({ ...GOOD, cwd: "" })))).toMatchObject({ code: "invalid_input", field: "hook input.cwd" });
  });
});
