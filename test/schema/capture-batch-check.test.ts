/**
 * checkCaptureBatch (src/schema/capture-batch.ts) lets a plainly good capture batch
 * past without zod and hands everything else to the capture batch schema.
 * It must never accept what the schema refuses, and a refusal must be the
 * schema's own error: checked here on one good batch and many broken ones.
 */
import { describe, expect, test } from "bun:test";
import { CONTENT_MAX_BYTES, IDEM_KEY_MAX_BYTES, META_MAX_BYTES } from "../../src/limits.ts";
import { captureBatchSchema, checkCaptureBatch, plainlyGoodBatch } from "../../src/schema/capture-batch.ts";
import { parseInput } from "../../src/schema/parse.ts";
import { chunkedBatch, lineBatch } from "../capture/_batches.ts";

/** The error a call throws, as code, field and message; undefined when it passes. */
function outcome(fn: () => unknown): { code?: string; field?: string; message?: string } | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    const err = e as { code?: string; field?: string; message?: string };
    return { code: err.code, field: err.field, message: err.message };
  }
}

type Batch = Record<string, unknown> & { entries: Record<string, unknown>[] };
const good = (): Batch => structuredClone(lineBatch(3, 6)) as unknown as Batch;
const entry = (b: Batch, i = 1) => b.entries[i]!.entry as Record<string, unknown>;
/** Sets (or, with no value given, deletes) a field of the second entry item. */
const item =
  (k: string, ...v: unknown[]) =>
  (b: Batch) => {
    if (v.length === 0) delete b.entries[1]![k];
    else b.entries[1]![k] = v[0];
    return b;
  };
/** Sets (or, with no value given, deletes) a field of the second entry. */
const field =
  (k: string, ...v: unknown[]) =>
  (b: Batch) => {
    if (v.length === 0) delete entry(b)[k];
    else entry(b)[k] = v[0];
    return b;
  };

/** Ways to break (or merely bend) a good batch; each names what it does. */
const CASES: [string, (b: Batch) => unknown][] = [
  ["as is", (b) => b],
  ["an extra top-level field (the schema strips it)", (b) => ({ ...b, extra: 1 })],
  ["no source", ({ source: _s, ...b }) => b],
  ["an empty source", (b) => ({ ...b, source: "" })],
  ["a source over 4096", (b) => ({ ...b, source: "s".repeat(4097) })],
  ["a source of 4096", (b) => ({ ...b, source: "s".repeat(4096) })],
  ["a numeric source", (b) => ({ ...b, source: 7 })],
  ["a session with a control character", (b) => ({ ...b, session: "a\u0001b" })],
  ["a session with a '..' segment", (b) => ({ ...b, session: "a/../b" })],
  ["a session of 256 bytes", (b) => ({ ...b, session: "s".repeat(256) })],
  ["a path over 4096", (b) => ({ ...b, path: "p".repeat(4097) })],
  ["an empty path", (b) => ({ ...b, path: "" })],
  ["a negative start offset", (b) => ({ ...b, start: { offset: -1, position: 0, chunk: 0 } })],
  ["a fractional end position", (b) => ({ ...b, end: { offset: 0, position: 1.5, chunk: 0 } })],
  ["an end chunk of NaN", (b) => ({ ...b, end: { offset: 0, position: 1, chunk: Number.NaN } })],
  ["a cursor past 2^53", (b) => ({ ...b, end: { offset: 2 ** 53, position: 1, chunk: 0 } })],
  ["a cursor with an extra field", (b) => ({ ...b, start: { offset: 0, position: 0, chunk: 0, extra: 0 } })],
  ["a cursor missing its chunk", (b) => ({ ...b, start: { offset: 0, position: 0 } })],
  ["a cursor that is an array", (b) => ({ ...b, start: [0, 0, 0] })],
  ["entries that are not an array", (b) => ({ ...b, entries: { 0: b.entries[0] } })],
  ["no entries (allowed)", (b) => ({ ...b, entries: [] })],
  ["a sparse entries array", (b) => ({ ...b, entries: Object.assign(new Array(3), { 0: b.entries[0], 2: b.entries[2] }) })],
  ["an entry item with an extra field", item("extra", 1)],
  ["an entry item with no before", item("before")],
  ["an entry item with no entry", item("entry")],
  ["an entry with an unknown field", field("tokens", 3)],
  ["an entry with an unknown role", field("role", "robot")],
  ["an entry with no role", field("role")],
  [
    "an entry with each role",
    (b) => {
      for (const [i, role] of ["tool", "system", "note"].entries()) entry(b, i).role = role;
      return b;
    },
  ],
  ["an entry with no content", field("content")],
  ["an entry with empty content (allowed)", field("content", "")],
  ["content with a lone surrogate", field("content", "a\ud800b")],
  ["content one byte over the limit", field("content", "x".repeat(CONTENT_MAX_BYTES + 1))],
  ["content at the limit, in two-byte characters", field("content", "é".repeat(CONTENT_MAX_BYTES / 2))],
  ["no idem_key", field("idem_key")],
  ["an empty idem_key", field("idem_key", "")],
  ["an idem_key over its limit", field("idem_key", "k".repeat(IDEM_KEY_MAX_BYTES + 1))],
  ["an idem_key at its limit", field("idem_key", "k".repeat(IDEM_KEY_MAX_BYTES))],
  ["an idem_key with a lone surrogate", field("idem_key", "\udc00")],
  ["meta left out", field("meta")],
  ["meta undefined", field("meta", undefined)],
  ["meta null", field("meta", null)],
  ["meta an array", field("meta", [1])],
  ["meta a string", field("meta", "x")],
  ["meta holding Infinity", field("meta", { a: Number.POSITIVE_INFINITY })],
  ["meta holding undefined", field("meta", { a: [undefined] })],
  ["meta holding a Date", field("meta", { at: new Date(0) })],
  ["meta over its limit", field("meta", { a: "m".repeat(META_MAX_BYTES) })],
  // The size is bounded without serializing (each character at most 6 bytes escaped) and measured only past the bound.
  ["meta at its limit exactly", field("meta", { a: "m".repeat(META_MAX_BYTES - 8) })],
  ["meta one byte over its limit", field("meta", { a: "m".repeat(META_MAX_BYTES - 7) })],
  ["meta of control characters, six bytes each escaped, over its limit", field("meta", { a: "\u0001".repeat(Math.ceil(META_MAX_BYTES / 6)) })],
  ["meta of control characters within its limit", field("meta", { a: "\u0001".repeat(Math.floor(META_MAX_BYTES / 6) - 2) })],
  ["meta of three-byte characters over its limit", field("meta", { a: "中".repeat(Math.ceil(META_MAX_BYTES / 3)) })],
  ["meta of many numbers and keys", field("meta", Object.fromEntries(Array.from({ length: 700 }, (_, i) => [`k${i}`, -1.234567890123457e-300])))],
  // A number serializes to at most 25 characters (-0.0000012345678901234567): an array of them just over the limit.
  ["meta of 25-character numbers just over its limit", field("meta", { a: Array(631).fill(-0.0000012345678901234567) })],
  ["content at the limit, in one-byte characters", field("content", "x".repeat(CONTENT_MAX_BYTES))],
  ["content of three-byte characters one over the limit", field("content", "中".repeat(Math.floor(CONTENT_MAX_BYTES / 3) + 1))],
  ["an idem_key of three-byte characters at its limit", field("idem_key", "中".repeat(IDEM_KEY_MAX_BYTES / 3))],
  ["an idem_key of three-byte characters over its limit", field("idem_key", "中".repeat(IDEM_KEY_MAX_BYTES / 3 + 1))],
  ["meta with a key holding a lone surrogate", field("meta", { "k\ud800": 1 })],
  ["meta with arrays of objects", field("meta", { tools: [{ id: "t1", input: { a: [1, 2, { b: null }] } }], ok: true })],
  ["meta of a null prototype", field("meta", Object.assign(Object.create(null), { a: 1 }))],
  ["meta nested to the depth limit", field("meta", JSON.parse(`${'{"a":'.repeat(100)}1${"}".repeat(100)}`))],
  ["meta nested one past the depth limit", field("meta", JSON.parse(`${'{"a":'.repeat(101)}1${"}".repeat(101)}`))],
  ["meta nested past the depth limit", field("meta", JSON.parse(`${'{"a":'.repeat(120)}1${"}".repeat(120)}`))],
  ["an entry that is a class instance", (b) => item("entry", Object.assign(new (class E {})(), entry(b)))(b)],
  ["a batch that is null", () => null],
  ["a batch that is a string", () => "batch"],
];

describe("checkCaptureBatch", () => {
  test("passes and refuses exactly as the capture batch schema does, with its error", () => {
    for (const [what, bend] of CASES) {
      const expected = outcome(() => parseInput(captureBatchSchema(), bend(good())));
      const got = outcome(() => checkCaptureBatch(bend(good())));
      expect({ what, got }).toEqual({ what, got: expected });
    }
    // The cases cover both sides: batches the schema accepts and ones it refuses.
    const refused = CASES.filter(([, bend]) => outcome(() => parseInput(captureBatchSchema(), bend(good()))) !== undefined);
    expect(refused.length).toBeGreaterThan(30);
    expect(CASES.length - refused.length).toBeGreaterThan(8);
    // Only batches the schema accepts skip it; the ones the capture reader builds all do.
    for (const [what, bend] of CASES) {
      if (plainlyGoodBatch(bend(good()))) expect({ what, refused: refused.some(([w]) => w === what) }).toEqual({ what, refused: false });
    }
    const skipped = CASES.filter(([, bend]) => plainlyGoodBatch(bend(good()))).map(([w]) => w);
    expect(skipped).toEqual(
      expect.arrayContaining(["as is", "meta left out", "meta undefined", "an entry with each role", "content at the limit, in two-byte characters"]),
    );
  });

  test("a batch of chunks of one line passes, and a refusal names the field", () => {
    expect(plainlyGoodBatch(chunkedBatch(1))).toBe(true);
    expect(outcome(() => checkCaptureBatch(chunkedBatch(1)))).toBeUndefined();
    const b = good();
    entry(b, 2).role = "robot";
    expect(outcome(() => checkCaptureBatch(b))).toMatchObject({ code: "invalid_input", field: "entries.2.entry.role" });
  });
});
