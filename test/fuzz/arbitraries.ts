/** fast-check generators of near-valid and hostile inputs for every operation (issue 9). */
import fc from "fast-check";

/** Strings that stress validators: control chars, '..', lone surrogates, long multi-byte runs. */
export const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.constantFrom("", ".", "..", "a/../b", "/a", "a/", "a//b", "\u0000", "\ud800", "é".repeat(128), "x".repeat(256), "a/b/c", "ok", "\u0085"),
  fc.string({ unit: fc.constantFrom("a", "/", ".", "\u0001", "é", "\ud83d\ude00", " ") }),
);

/** Numbers that stress validators. */
export const nastyNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  // biome-ignore lint/correctness/noPrecisionLoss: 1e400 is meant to arrive as Infinity, as JSON.parse would read it
  fc.constantFrom(0, -1, 1, 1000, 1001, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, Infinity, -Infinity, NaN, 1e400, 0.5),
);

/** Any JSON-ish value, including non-JSON ones (undefined, NaN). */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  nastyNumber,
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.jsonValue(),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(nastyString, fc.jsonValue(), { maxKeys: 3 }),
);

/** A value that is usually right for the field and sometimes hostile. */
const maybe = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 8, arbitrary: good }, { weight: 1, arbitrary: anyValue });

const role = fc.constantFrom("user", "assistant", "tool", "system", "note");
const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom("s", "p/a", "p/b/c", "seed", "é/ü") }, { weight: 1, arbitrary: nastyString });

/** An object with optional extra unknown keys. */
function withExtras(rec: fc.Arbitrary<Record<string, unknown>>) {
  return fc
    .tuple(rec, fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), anyValue, { maxKeys: 2 }), { freq: 5 }))
    .map(([r, extra]) => ({ ...r, ...(extra ?? {}) }));
}

const entry = withExtras(
  fc.record(
    {
      role: maybe(role),
      content: maybe(fc.string()),
      meta: fc.option(maybe(fc.dictionary(fc.string(), fc.jsonValue())), { nil: undefined }),
      idem_key: fc.option(maybe(fc.string({ minLength: 1, maxLength: 8 })), { nil: undefined }),
    },
    { requiredKeys: ["role", "content"] },
  ),
);

/** Inputs per operation name (the Memory method). */
export const inputs = {
  // Mostly one entry: every entry may be hostile, so with up to four the valid appends were rare enough
  // (about 8 in 300) that the store fuzz's "reaches the write path" check failed one run in four.
  append: withExtras(
    fc.record(
      {
        session: name,
        entries: maybe(
          fc.oneof(
            { weight: 3, arbitrary: fc.array(entry, { minLength: 1, maxLength: 1 }) },
            { weight: 1, arbitrary: fc.array(entry, { minLength: 0, maxLength: 4 }) },
          ),
        ),
      },
      { requiredKeys: [] },
    ),
  ),
  read: withExtras(fc.record({ session: name, after: maybe(fc.nat()), limit: maybe(fc.integer({ min: 1, max: 1000 })) }, { requiredKeys: [] })),
  sessions: withExtras(fc.record({ prefix: name, after: maybe(fc.string()), limit: maybe(fc.integer({ min: 1, max: 1000 })) }, { requiredKeys: [] })),
  search: withExtras(
    fc.record(
      { query: maybe(fc.string({ minLength: 1 })), session: name, prefix: name, role: maybe(role), limit: maybe(fc.integer({ min: 1, max: 1000 })) },
      { requiredKeys: [] },
    ),
  ),
  factSet: withExtras(fc.record({ key: name, value: anyValue, idem_key: maybe(fc.string({ minLength: 1, maxLength: 8 })) }, { requiredKeys: [] })),
  factGet: withExtras(fc.record({ key: name }, { requiredKeys: [] })),
  factList: withExtras(fc.record({ prefix: name, after: maybe(fc.string()), limit: maybe(fc.integer({ min: 1, max: 1000 })) }, { requiredKeys: [] })),
  factHistory: withExtras(fc.record({ key: name, before: maybe(fc.nat()), limit: maybe(fc.integer({ min: 1, max: 1000 })) }, { requiredKeys: [] })),
  linkList: withExtras(
    fc.record(
      {
        prefix: maybe(fc.oneof(fc.constantFrom("https://", "http://example.com/"), fc.string())),
        before: maybe(fc.nat()),
        limit: maybe(fc.integer({ min: 1, max: 1000 })),
      },
      { requiredKeys: [] },
    ),
  ),
  activity: withExtras(fc.record({ days: maybe(fc.integer({ min: 0, max: 400 })) }, { requiredKeys: [] })),
  forget: withExtras(
    fc.record(
      {
        selector: fc.oneof(
          {
            weight: 4,
            arbitrary: fc.oneof(
              name.map((session) => ({ session })),
              name.map((session_prefix) => ({ session_prefix })),
              fc.nat().map((turn) => ({ turn })),
              name.map((fact) => ({ fact })),
              name.map((fact_prefix) => ({ fact_prefix })),
              fc.date({ noInvalidDate: true }).map((d) => ({ before: d.toISOString() })),
            ),
          },
          {
            weight: 1,
            arbitrary: maybe(
              fc.record({ session: name, session_prefix: name, turn: nastyNumber, fact: name, fact_prefix: name, before: nastyString }, { requiredKeys: [] }),
            ),
          },
        ),
        dry_run: maybe(fc.boolean()),
      },
      { requiredKeys: [] },
    ),
  ),
} as const;

/** The codes a rejection of bad input may carry. */
export const INPUT_CODES = ["invalid_input", "too_large", "not_found", "conflict"];

/**
 * The runs of one door suite: `share` of ZERODB_FUZZ_RUNS (default 300), at
 * least 5. Door suites spawn processes or make requests, so they run a share
 * of what the in-process store fuzz runs; the soak raises them all at once.
 */
export function fuzzRuns(share: number): number {
  return Math.max(5, Math.round(Number(process.env.ZERODB_FUZZ_RUNS ?? "300") * share));
}

/** JSON text nested `depth` levels deep, as arrays or objects (stack and SQLite json depth limits). */
export function deepJsonText(depth: number, kind: "array" | "object"): string {
  return kind === "array" ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

const DEEP = /"\\u0000deep:(\d+):(array|object)"/g;

/**
 * Deeply nested JSON, a few levels past every sane limit and far past them.
 * Generated as a placeholder string that jsonText expands, because a value
 * 200,000 levels deep cannot go through JSON.stringify (or fast-check's report).
 */
export const deepValue: fc.Arbitrary<unknown> = fc
  .tuple(fc.constantFrom(90, 101, 1_001, 5_000, 200_000), fc.constantFrom("array", "object"))
  .map(([depth, kind]) => `\u0000deep:${depth}:${kind}`);

/** JSON.stringify, with deepValue placeholders expanded to their nested text. */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  return text.replace(DEEP, (_, depth: string, kind: "array" | "object") => deepJsonText(Number(depth), kind));
}

/** anyValue plus deeply nested values (send them with jsonText). */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof({ weight: 6, arbitrary: anyValue }, { weight: 1, arbitrary: deepValue });

/** Bytes that are not a JSON document: garbage, invalid UTF-8, truncated JSON, a BOM, NULs. */
export const notJsonBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc
    .constantFrom("", " ", "{", '{"session":', "[1,", "nul", "\u0000", "\ufeff{}", "{'a':1}", "{}}", "1e999999", '"\\ud800"')
    .map((s) => new Uint8Array(Buffer.from(s))),
  fc.constant(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
);

/**
 * One query-string component as it goes on the wire: a nasty string
 * percent-encoded, or raw text with broken escapes ('%', '%zz', '%ff').
 */
export const queryComponent: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: nastyString.map((s) => (s.isWellFormed() ? encodeURIComponent(s) : encodeURIComponent(s.toWellFormed()))) },
  { weight: 1, arbitrary: fc.constantFrom("%", "%zz", "%ff", "%c3", "%ED%A0%80", "a+b", "%00", "&", "=", "%2F") },
  { weight: 2, arbitrary: fc.constantFrom("0", "1", "1000", "1001", "-1", "1e3", "12abc", "99999999999999999", "", "s", "note") },
);

/** A query string over `names` (known parameters) plus unknown and repeated ones, or none. */
export function queryString(names: string[]): fc.Arbitrary<string> {
  const pair = fc.tuple(
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...(names.length > 0 ? names : ["x"])) }, { weight: 1, arbitrary: queryComponent }),
    fc.option(queryComponent, { freq: 8 }),
  );
  return fc.array(pair, { maxLength: 4 }).map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => (v === null ? k : `${k}=${v}`)).join("&")}`));
}
