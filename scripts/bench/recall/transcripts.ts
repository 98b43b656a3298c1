/**
 * The scripted sessions as real Claude Code transcripts (HARNESSES.md
 * "Claude Code transcripts"): message lines chained by uuid/parentUuid, tool
 * calls and their results in separate lines, and the bookkeeping lines real
 * transcripts carry (queue operations, a file-history snapshot, an attachment).
 * Deterministic: uuids and times come from the session and the line's index.
 */
import { createHash } from "node:crypto";
import type { SessionScript, Step } from "./_types.ts";
import { cronDst, postgres, stagingDeploy, uploadClient } from "./sessions-1.ts";
import { ciPipeline, frontend, japanesePayments } from "./sessions-2.ts";
import { authRefactor, chineseCache, opsDisk, searchReindex } from "./sessions-3.ts";

/** Every session of the set. */
export const SESSIONS: SessionScript[] = [
  uploadClient,
  stagingDeploy,
  cronDst,
  postgres,
  frontend,
  ciPipeline,
  japanesePayments,
  chineseCache,
  authRefactor,
  opsDisk,
  searchReindex,
];

type Line = Record<string, unknown>;

/** A uuid made from a seed, so the same session always gives the same lines. */
function uuidOf(seed: string): string {
  const h = createHash("sha256").update(seed).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The transcript lines of one session, in file order. */
export function transcriptLines(s: SessionScript): Line[] {
  const out: Line[] = [];
  let parent: string | null = null;
  let n = 0;
  let msg = 0;
  const t0 = Date.parse(s.start);
  const time = () => new Date(t0 + n * 7_000).toISOString();
  const message = (type: "user" | "assistant", content: unknown, extra: Line = {}): Line => {
    const uuid = uuidOf(`${s.id}:${n}`);
    const line: Line = {
      parentUuid: parent,
      isSidechain: false,
      userType: "external",
      cwd: s.cwd,
      sessionId: s.id,
      version: "2.1.32",
      gitBranch: s.branch,
      type,
      message: content,
      uuid,
      timestamp: time(),
      ...extra,
    };
    parent = uuid;
    n++;
    out.push(line);
    return line;
  };
  const assistant = (blocks: unknown[]) =>
    message("assistant", {
      id: `msg_${uuidOf(`${s.id}:msg${++msg}`).replace(/-/g, "").slice(0, 24)}`,
      type: "message",
      role: "assistant",
      model: "claude-opus-4-5",
      content: blocks,
      stop_reason: null,
      usage: { input_tokens: 3, output_tokens: 120 },
    });
  const first = s.steps.find((x): x is { u: string } => "u" in x)?.u ?? "";
  out.push({ type: "queue-operation", operation: "enqueue", timestamp: time(), sessionId: s.id, content: first });
  out.push({ type: "queue-operation", operation: "dequeue", timestamp: time(), sessionId: s.id });
  s.steps.forEach((step: Step, i) => {
    if ("u" in step) {
      const line = message("user", { role: "user", content: step.u });
      if (i === 0) {
        out.push({
          type: "file-history-snapshot",
          messageId: line.uuid,
          snapshot: { messageId: line.uuid, trackedFileBackups: {}, timestamp: line.timestamp },
          isSnapshotUpdate: false,
        });
        const uuid = uuidOf(`${s.id}:att`);
        out.push({
          parentUuid: parent,
          isSidechain: false,
          userType: "external",
          cwd: s.cwd,
          sessionId: s.id,
          version: "2.1.32",
          gitBranch: s.branch,
          type: "attachment",
          uuid,
          timestamp: time(),
          attachment: { type: "todo_reminder", content: [], itemCount: 0 },
        });
        parent = uuid;
      }
    } else if ("tool" in step) {
      const id = `toolu_${uuidOf(`${s.id}:tool${i}`).replace(/-/g, "").slice(0, 24)}`;
      assistant([{ type: "tool_use", id, name: step.tool, input: step.input }]);
      message(
        "user",
        { role: "user", content: [{ tool_use_id: id, type: "tool_result", content: step.out, ...(step.error ? { is_error: true } : {}) }] },
        { toolUseResult: { stdout: step.out, stderr: "", interrupted: false } },
      );
    } else {
      // Claude Code writes one response's thinking and text as separate lines sharing message.id; one line here keeps ids simple.
      if (step.think !== undefined) assistant([{ type: "thinking", thinking: step.think, signature: "EqQBCkYIBxgCKkB" }]);
      if ("a" in step) assistant([{ type: "text", text: step.a }]);
    }
  });
  out.push({ type: "last-prompt", lastPrompt: first, sessionId: s.id });
  return out;
}

/** One session as JSONL text. */
export function transcriptJsonl(s: SessionScript): string {
  return transcriptLines(s)
    .map((l) => `${JSON.stringify(l)}\n`)
    .join("");
}

/**
 * The text a person reads in each message line (not the serialized JSON):
 * prompts, replies, thinking, tool inputs' string values and tool results.
 * The set's labels are checked against these.
 */
export function readableTurns(s: SessionScript): string[] {
  const texts: string[] = [];
  for (const line of transcriptLines(s)) {
    if (line.type !== "user" && line.type !== "assistant") continue;
    const content = (line.message as { content: unknown }).content;
    if (typeof content === "string") {
      texts.push(content);
      continue;
    }
    const parts: string[] = [];
    for (const b of content as Record<string, unknown>[]) {
      if (b.type === "text") parts.push(String(b.text));
      else if (b.type === "thinking") parts.push(String(b.thinking));
      else if (b.type === "tool_use")
        parts.push(
          `${b.name}\n${Object.values(b.input as Record<string, unknown>)
            .filter((v) => typeof v === "string")
            .join("\n")}`,
        );
      else if (b.type === "tool_result") parts.push(String(b.content));
    }
    texts.push(parts.join("\n\n"));
  }
  return texts;
}
