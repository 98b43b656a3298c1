/**
 * Codex's `exec_command_end` lines (render-codex.ts): the unified exec tool
 * answers `exec_command` and each `write_stdin` poll with what the command
 * printed since the last one, while the end event holds the command and all
 * of its output. Its line is rendered as that command's tool result for the
 * sources whose output no single function_call_output holds, and stays the
 * bookkeeping note it was for the others. Shapes as Codex's protocol types
 * define them; the text is made up.
 */
import { describe, expect, test } from "bun:test";
import { lineEntries } from "../../src/capture/entries.ts";
import type { Rendered } from "../../src/capture/render.ts";
import { renderCodexLine } from "../../src/capture/render-codex.ts";

const AT = "2026-11-30T10:00:05.000Z";

/** An exec_command_end payload as Codex 0.171 writes it in an extended rollout. */
function end(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "exec_command_end",
    call_id: "call_run1",
    process_id: "4242",
    turn_id: "turn-1",
    command: ["/bin/bash", "-lc", "npx vitest --run src/ledger.test.ts"],
    cwd: "/work/ledger",
    parsed_cmd: [{ type: "unknown", cmd: "npx vitest --run src/ledger.test.ts" }],
    source: "unified_exec_startup",
    stdout: "",
    stderr: "",
    aggregated_output: "\n RUN  /work/ledger\n\n Tests  12 passed (12)\n",
    exit_code: 0,
    duration: { secs: 6, nanos: 500000000 },
    formatted_output: "",
    status: "completed",
    ...fields,
  };
}

const line = (payload: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ timestamp: AT, ordinal: 7, type: "event_msg", payload, ...extra });

/** The bookkeeping note capture made of every event_msg line before, for comparison. */
function note(payload: unknown): Rendered {
  const subtype = (payload as { type?: unknown }).type;
  return {
    role: "note",
    content: `[event_msg ${String(subtype)}] ${JSON.stringify({ payload })}`,
    meta: { type: "event_msg", timestamp: AT, ordinal: 7, subtype },
    images: [],
    shape: { kind: "system", bookkeeping: true, metadata: true, uses: [], results: [] },
  };
}

describe("exec_command_end", () => {
  test("a unified exec command's end is its tool result: the script of the shell wrapper, then the whole output", () => {
    expect(renderCodexLine(line(end()))).toEqual({
      role: "tool",
      content: "[tool_result]\n$ npx vitest --run src/ledger.test.ts\n\n RUN  /work/ledger\n\n Tests  12 passed (12)\n",
      meta: {
        type: "event_msg",
        timestamp: AT,
        ordinal: 7,
        subtype: "exec_command_end",
        tool_use_ids: ["call_run1"],
        exit_code: 0,
        cwd: "/work/ledger",
        source: "unified_exec_startup",
      },
      images: [],
      shape: { kind: "tool_result", bookkeeping: false, uses: [], results: ["call_run1"] },
    });
  });

  test("an interaction's end with a non-zero exit code is an error; a plain argv is joined by spaces", () => {
    const r = renderCodexLine(
      line(
        end({
          source: "unified_exec_interaction",
          call_id: "call_poll2",
          command: ["git", "diff", "--stat"],
          exit_code: 128,
          aggregated_output: "fatal: bad revision\n",
        }),
      ),
    );
    expect([r.role, r.content, r.meta.exit_code, r.meta.source, r.shape.results]).toEqual([
      "tool",
      "[tool_result error]\n$ git diff --stat\nfatal: bad revision\n",
      128,
      "unified_exec_interaction",
      ["call_poll2"],
    ]);
    // `sh -c` is a wrapper too; `python -c` is not a shell, and `-lc` with more words is not a wrapper.
    expect(renderCodexLine(line(end({ command: ["/usr/bin/sh", "-c", "make -j4"] }))).content).toStartWith("[tool_result]\n$ make -j4\n");
    expect(renderCodexLine(line(end({ command: ["python3", "-c", "print(1)"] }))).content).toStartWith("[tool_result]\n$ python3 -c print(1)\n");
    expect(renderCodexLine(line(end({ command: ["zsh", "-lc", "ls", "extra"] }))).content).toStartWith("[tool_result]\n$ zsh -lc ls extra\n");
  });

  test("a command the user ran (`!cmd`, source user_shell) is a tool result too: its output is otherwise only in injected context", () => {
    const r = renderCodexLine(
      line(end({ source: "user_shell", call_id: "user-shell-1", command: ["bash", "-lc", "git status --short"], aggregated_output: " M src/ledger.ts\n" })),
    );
    expect([r.role, r.content, r.meta.tool_use_ids]).toEqual(["tool", "[tool_result]\n$ git status --short\n M src/ledger.ts\n", ["user-shell-1"]]);
  });

  test("without aggregated_output, stdout then stderr", () => {
    const { aggregated_output: _a, ...rest } = end();
    expect(renderCodexLine(line({ ...rest, stdout: "built 3 files", stderr: "warning: slow disk\n", exit_code: 0 })).content).toBe(
      "[tool_result]\n$ npx vitest --run src/ledger.test.ts\nbuilt 3 files\nwarning: slow disk\n",
    );
    expect(renderCodexLine(line({ ...rest, stdout: "built 3 files\n", stderr: "" })).content).toBe(
      "[tool_result]\n$ npx vitest --run src/ledger.test.ts\nbuilt 3 files\n",
    );
    const { stdout: _o, stderr: _e, ...bare } = rest;
    expect(renderCodexLine(line(bare)).content).toBe("[tool_result]\n$ npx vitest --run src/ledger.test.ts\n");
  });

  test("the classic shell tool's end (source agent, or none), whose function_call_output holds the whole output, stays the note it was; so does an unknown source", () => {
    for (const payload of [end({ source: "agent" }), (({ source: _s, ...p }) => p)(end()), end({ source: "remote_exec" })]) {
      expect(renderCodexLine(line(payload))).toEqual(note(payload));
    }
    // Other event_msg lines too.
    const tokens = { type: "token_count", info: null };
    expect(renderCodexLine(line(tokens))).toEqual(note(tokens));
  });

  test("long fields in meta are cut as every other meta string; a line without timestamp or ordinal has none in meta", () => {
    const long = `/work/${"d".repeat(400)}`;
    const r = renderCodexLine(JSON.stringify({ type: "event_msg", payload: end({ cwd: long, call_id: `call_${"x".repeat(300)}` }) }));
    expect(r.meta).toEqual({
      type: "event_msg",
      subtype: "exec_command_end",
      tool_use_ids: [`call_${"x".repeat(251)}`],
      exit_code: 0,
      cwd: long.slice(0, 256),
      source: "unified_exec_startup",
    });
  });

  test("a malformed payload never throws: each field that is not what Codex writes is left out", () => {
    const odd = end({ call_id: 42, command: 7, cwd: ["/x"], exit_code: "1", aggregated_output: { text: "no" }, stdout: "out" });
    const r = renderCodexLine(line(odd));
    expect(r).toEqual({
      role: "tool",
      content: "[tool_result]\nout",
      meta: { type: "event_msg", timestamp: AT, ordinal: 7, subtype: "exec_command_end", source: "unified_exec_startup" },
      images: [],
      shape: { kind: "tool_result", bookkeeping: false, uses: [], results: [""] },
    });
    // argv words that are not strings are written as JSON, however deep they nest.
    expect(renderCodexLine(line(end({ command: ["echo", 3, null] }))).content).toStartWith("[tool_result]\n$ echo 3 null\n");
    const deepText = `{"type":"event_msg","payload":{"type":"exec_command_end","source":"unified_exec_startup","command":[${"[".repeat(20000)}${"]".repeat(20000)}]}}`;
    expect(() => renderCodexLine(deepText)).not.toThrow();
    for (const payload of [null, "end", [1], { type: "exec_command_end", source: 5 }]) expect(() => renderCodexLine(line(payload))).not.toThrow();
  });

  test("captured, it is a findable tool result of the exec_command call, not noise, with its secrets replaced", () => {
    const secret = end({ command: ["/bin/zsh", "-lc", "AWS_ACCESS_KEY_ID=AKIAQX7ZK2MNB4VC6LPD ./sync.sh"], aggregated_output: "synced\n" });
    const { entries } = lineEntries(line(secret), {
      idemPrefix: "codex:019a0000-1111-7000-8000-000000000001",
      position: 9,
      redact: true,
      render: renderCodexLine,
      toolName: (id) => (id === "call_run1" ? "exec_command" : undefined),
    });
    expect(entries).toEqual([
      {
        role: "tool",
        content: "[tool_result]\n$ AWS_ACCESS_KEY_ID=[redacted:aws_access_key] ./sync.sh\nsynced\n",
        meta: {
          type: "event_msg",
          timestamp: AT,
          ordinal: 7,
          subtype: "exec_command_end",
          tool_use_ids: ["call_run1"],
          exit_code: 0,
          cwd: "/work/ledger",
          source: "unified_exec_startup",
          position: 9,
          kind: "tool_result",
          redacted: 1,
        },
        idem_key: "codex:019a0000-1111-7000-8000-000000000001:9:0",
      },
    ]);
  });
});
