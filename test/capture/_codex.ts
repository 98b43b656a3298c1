/**
 * Codex CLI rollouts as the capture tests see them. Written from the record
 * shapes HARNESSES.md documents ("Codex CLI": `{timestamp, ordinal, type,
 * payload}`, the record types, response_item payloads) and Codex's public
 * protocol types, not copied from a real session.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codexSource } from "../../src/capture/codex.ts";
import { SourceFile, readBatch } from "../../src/capture/read-batch.ts";
import { CURSOR_START } from "../../src/store/capture-cursors.ts";
import type { Memory } from "../../src/store/types.ts";
import { ZERODB } from "../helpers.ts";
import { jsonl } from "./_fixtures.ts";

/** A throwaway $CODEX_HOME with one day directory. */
export function codexLayout(root: string, name = "app") {
  const codexHome = join(root, "codex-home");
  const cwd = join(root, "work", name);
  const day = join(codexHome, "sessions", "2026", "11", "30");
  mkdirSync(day, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return {
    home: root,
    codexHome,
    cwd,
    rollout: (thread: string) => join(day, `rollout-2026-11-30T10-00-00-${thread}.jsonl`),
  };
}
export type CodexLayout = ReturnType<typeof codexLayout>;

/** The lines of a rollout: session_meta and turn_context, then `turns` user/assistant exchanges with a tool call each. */
export function rolloutLines(thread: string, cwd: string, turns: number, word = "turn"): unknown[] {
  let ordinal = 0;
  const line = (type: string, payload: object) => ({ timestamp: "2026-11-30T10:00:00.000Z", ordinal: ordinal++, type, payload });
  const out: unknown[] = [
    line("session_meta", { id: thread, timestamp: "2026-11-30T10:00:00.000Z", cwd, originator: "codex_exec", cli_version: "0.171.0", instructions: null }),
    line("response_item", {
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text: "<permissions instructions>sandboxed</permissions instructions>" }],
    }),
    line("response_item", {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: `<environment_context>\n  <cwd>${cwd}</cwd>\n</environment_context>` }],
    }),
    line("turn_context", { cwd, approval_policy: "never", model: "stand-in" }),
  ];
  for (let i = 0; i < turns; i++) {
    out.push(line("response_item", { type: "message", role: "user", content: [{ type: "input_text", text: `${word} ${i} question` }] }));
    out.push(line("event_msg", { type: "user_message", message: `${word} ${i} question`, images: [] }));
    out.push(
      line("response_item", {
        type: "reasoning",
        id: `rs_${i}`,
        summary: [{ type: "summary_text", text: `${word} ${i} thinking` }],
        encrypted_content: "gAAA",
      }),
    );
    out.push(line("response_item", { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: `echo ${i}` }), call_id: `call_${i}` }));
    out.push(line("response_item", { type: "function_call_output", call_id: `call_${i}`, output: `${word} ${i} output` }));
    out.push(line("response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text: `${word} ${i} answer` }] }));
    out.push(line("event_msg", { type: "agent_message", message: `${word} ${i} answer` }));
    out.push(line("event_msg", { type: "token_count", info: null }));
  }
  out.push(line("world_state", { something: "new" }));
  out.push(line("token_usage_record", { input_tokens: 1, output_tokens: 2 }));
  out.push(line("compacted", { message: "summary", replacement_history: [] }));
  return out;
}

/** Writes a rollout; returns its lines. */
export function writeRollout(path: string, thread: string, cwd: string, turns: number, word = "turn"): unknown[] {
  const lines = rolloutLines(thread, cwd, turns, word);
  writeFileSync(path, lines.map(jsonl).join(""));
  return lines;
}

/** The notification Codex passes its notify program after a turn. */
export function notification(thread: string, cwd: string): string {
  return JSON.stringify({
    type: "agent-turn-complete",
    "thread-id": thread,
    "turn-id": "t1",
    cwd,
    client: "codex_exec",
    "input-messages": ["hi"],
    "last-assistant-message": "ok",
  });
}

/** The environment Codex gives its notify program, as far as zerodb reads it. */
export function codexEnv(L: CodexLayout): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: L.home, ZERODB_HOME: join(L.home, "zerodb"), CODEX_HOME: L.codexHome };
}

/** Starts `zerodb hook codex <json>` as Codex would. */
export function spawnCodexHook(L: CodexLayout, thread: string, payload = notification(thread, L.cwd)) {
  return Bun.spawn([ZERODB, "hook", "codex", payload], { cwd: L.cwd, env: codexEnv(L), stdout: "pipe", stderr: "pipe" });
}

/** Today's capture of a whole rollout, from its first line, appended to `m` at once: its entries, and how many were not stored already. */
export async function replayRollout(m: Memory, opts: { path: string; thread: string; session: string }): Promise<{ entries: number; fresh: number }> {
  const source = codexSource(opts.path, opts.thread);
  using file = new SourceFile(source);
  const limits = { entries: 1000, bytes: 1 << 30, firstFree: true };
  const read = readBatch(source, file, { start: CURSOR_START, session: opts.session, redact: true, limits, deadline: undefined }, new Set())!;
  const r = await m.append({ session: opts.session, entries: read.batch.entries.map((e) => e.entry) });
  return { entries: r.entries.length, fresh: r.entries.filter((e) => !e.duplicate).length };
}
