/**
 * Fuzz `zerodb hook claude-code` (issue 9, DESIGN.md 7.2): generated stdin
 * (hook events, near-valid and hostile, and bytes that are no JSON) naming
 * generated transcripts (message lines, metadata, garbage, deep JSON,
 * secrets, partial lines). A hook never blocks or breaks the harness: always
 * exit 0, never 2; stdout is empty or one SessionStart JSON document; at most
 * one line in capture.log per run, and no transcript content or secret in
 * it (I10); the store stays intact (I2).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runZ, tempDir } from "../helpers.ts";
import { INTERNALS, integrity, reportCases } from "./_check.ts";
import { deepJsonText, fuzzRuns, nastyString, notJsonBytes } from "./arbitraries.ts";

const RUNS = fuzzRuns(1 / 3);
const EVENTS = ["SessionStart", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "SessionEnd"];
/** A word only transcripts hold, and a secret of a shape redaction knows: neither may reach the log. */
const WORD = "quokkafirmament";
const SECRET = "AKIAQX7ZHOOKFUZZ0001";

/** One transcript line: Claude Code's shapes with generated content, or something that is not one. */
const line: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom("user", "assistant"), nastyString, fc.uuid())
      .map(([role, text, uuid]) =>
        JSON.stringify({ type: role, uuid, parentUuid: null, sessionId: "s", message: { role, content: `${text} ${WORD} ${SECRET}` } }),
      ),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.uuid(), nastyString).map(([uuid, text]) =>
      JSON.stringify({
        type: "assistant",
        uuid,
        message: {
          role: "assistant",
          id: "m",
          content: [
            { type: "text", text },
            { type: "tool_use", id: "t", name: "Bash", input: { command: `${WORD} password=hunter2hunter2` } },
            { type: "thinking", thinking: WORD, signature: "x" },
          ],
        },
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.uuid(), fc.jsonValue()).map(([uuid, content]) => JSON.stringify({ type: "user", uuid, message: { role: "user", content } })),
  },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify({ type: "summary", summary: v })) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1_000, 200_000).map((d) => `{"type":"user","uuid":"deep","message":{"role":"user","content":${deepJsonText(d, "array")}}}`),
  },
  { weight: 1, arbitrary: nastyString.map((s) => `${s} ${WORD}`) },
  { weight: 1, arbitrary: fc.constantFrom("", "{", "-----BEGIN RSA PRIVATE KEY-----", `password=${"=".repeat(5000)}`, `${"Bearer ".repeat(2000)}x`) },
);

/** A transcript: lines joined by newlines, the last one sometimes left partial. */
const transcript = fc
  .tuple(fc.array(line, { maxLength: 8 }), fc.boolean())
  .map(([lines, partial]) => lines.join("\n") + (partial || lines.length === 0 ? "" : "\n"));

/** What the event's transcript_path names. */
const transcriptPath = fc.oneof(
  { weight: 6, arbitrary: fc.constant("TRANSCRIPT") },
  { weight: 1, arbitrary: fc.constantFrom("missing.jsonl", "dir", "/dev/null", "/dev/zero", "", "relative.jsonl") },
  { weight: 1, arbitrary: nastyString },
);

/** A hook event: usually near-valid, with hostile values now and then. */
const event = fc.record(
  {
    session_id: fc.oneof({ weight: 4, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.oneof(nastyString, fc.integer(), fc.constant(null)) }),
    transcript_path: fc.oneof({ weight: 6, arbitrary: transcriptPath }, { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant([])) }),
    cwd: fc.oneof({ weight: 4, arbitrary: fc.constant("CWD") }, { weight: 1, arbitrary: fc.oneof(nastyString, fc.constantFrom("/", ".", "/nonexistent/x")) }),
    hook_event_name: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...EVENTS) }, { weight: 1, arbitrary: nastyString }),
    source: fc.constantFrom("startup", "resume", "clear", "compact"),
    reason: nastyString,
    agent_id: nastyString,
    agent_transcript_path: transcriptPath,
    prompt: fc.constant(`${WORD} ${SECRET}`),
  },
  { requiredKeys: [] },
);

/** The hook's stdin. */
const stdin = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(event, fc.option(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 }), { freq: 4 }))
      .map(([e, extra]) => ({ kind: "event" as const, value: { ...extra, ...e } })),
  },
  { weight: 1, arbitrary: notJsonBytes.map((bytes) => ({ kind: "bytes" as const, value: bytes })) },
  { weight: 1, arbitrary: fc.jsonValue().map((value) => ({ kind: "json" as const, value })) },
  // Past the 1 MiB the hook reads (HOOK_INPUT_MAX_BYTES).
  { weight: 1, arbitrary: fc.constantFrom(1024 * 1024 + 1, 3 * 1024 * 1024).map((n) => ({ kind: "bytes" as const, value: new Uint8Array(n).fill(0x7b) })) },
);

describe("hook claude-code fuzz (7.2, I10)", () => {
  let box: { path: string; [Symbol.dispose](): void };
  let cases = 0;
  let n = 0;
  const log = () => join(box.path, "zerodb", "logs", "capture.log");
  const logLines = () => {
    try {
      return readFileSync(log(), "utf8")
        .split("\n")
        .filter((l) => l !== "");
    } catch {
      return [];
    }
  };

  beforeAll(() => {
    box = tempDir("zerodb-fuzz-hook-");
    mkdirSync(join(box.path, "dir"));
    mkdirSync(join(box.path, "work"));
  });

  afterAll(() => {
    reportCases("hook", cases);
    box?.[Symbol.dispose]();
  });

  test(`${RUNS} generated hook runs: exit 0, stdout only hook JSON, at most one log line, no content in the log`, async () => {
    await fc.assert(
      fc.asyncProperty(stdin, transcript, async (input, text) => {
        const file = join(box.path, `t-${n++}.jsonl`);
        writeFileSync(file, text);
        let bytes: Uint8Array;
        if (input.kind === "event") {
          const v = input.value as Record<string, unknown>;
          for (const k of ["transcript_path", "agent_transcript_path"]) if (v[k] === "TRANSCRIPT") v[k] = file;
          if (v.cwd === "CWD") v.cwd = join(box.path, "work");
          bytes = Buffer.from(JSON.stringify(v));
        } else bytes = input.kind === "bytes" ? input.value : Buffer.from(JSON.stringify(input.value) ?? "");
        const context = `stdin ${Buffer.from(bytes).toString("utf8").slice(0, 300)} transcript ${JSON.stringify(text.slice(0, 200))}`;
        const before = logLines().length;
        const r = await runZ(["hook", "claude-code"], { home: box.path, stdin: bytes, cwd: join(box.path, "work") });
        cases++;
        expect(r.code, `7.2: a hook always exits 0, never 2 (${context}); stderr: ${r.stderr}`).toBe(0);
        expect(r.stderr, `I10: nothing on stderr (${context})`).toBe("");
        if (r.stdout !== "") {
          const out = r.stdout.trimEnd().split("\n");
          expect(out, `7.2: one JSON document on stdout (${context})`).toHaveLength(1);
          const doc = JSON.parse(out[0]!);
          expect(Object.keys(doc), `7.2: only hookSpecificOutput (${context})`).toEqual(["hookSpecificOutput"]);
          expect(doc.hookSpecificOutput.hookEventName, `7.2: only SessionStart prints (${context})`).toBe("SessionStart");
          expect(Buffer.byteLength(doc.hookSpecificOutput.additionalContext, "utf8"), `7.2: additionalContext at most 8 KiB (${context})`).toBeLessThanOrEqual(
            8192,
          );
        }
        const after = logLines();
        expect(after.length - before, `7.2: at most one capture.log line per run (${context})`).toBeLessThanOrEqual(1);
        for (const l of after.slice(before)) {
          expect(l.includes(WORD), `I10: no transcript content in capture.log (${context}): ${l}`).toBe(false);
          expect(l.includes(SECRET) || l.includes("hunter2"), `I10: no secret in capture.log (${context}): ${l}`).toBe(false);
          expect(l, `I10: no stack or internals in capture.log (${context})`).not.toMatch(INTERNALS);
          expect(l, `I10: a bad input is a typed error, never an internal one (${context})`).not.toMatch(/: internal: /);
        }
      }),
      { numRuns: RUNS },
    );
  }, 240_000);

  test("after the fuzz: the store is intact and no secret reached it (I2, 7.2)", async () => {
    const dataDir = join(box.path, "zerodb", "data");
    expect(integrity(dataDir)).toBe("ok");
    const { Database } = await import("bun:sqlite");
    const db = new Database(join(dataDir, "zerodb.sqlite"), { readonly: true });
    const leaked = db.query("SELECT count(*) AS n FROM tape WHERE text LIKE ? OR text LIKE ?").get(`%${SECRET}%`, "%hunter2hunter2%") as { n: number };
    const captured = db.query("SELECT count(*) AS n FROM tape WHERE kind = 'turn'").get() as { n: number };
    db.close();
    expect(captured.n, "the fuzz reached the write path").toBeGreaterThan(0);
    expect(leaked.n, "7.2: secrets never enter the store").toBe(0);
  });
});
