/**
 * Fuzz config.json (issue 9, DESIGN.md section 2, 6.3): generated contents,
 * from near-valid to no JSON at all, read by a store command and by the hook.
 * A bad file is one clear line naming the bad key (`config.<key>`), exit 2
 * or 1, never an internal error (I10) and never a crash; the hook still exits
 * 0; the file is never rewritten. Path-valued keys stay inside the sandbox
 * and URLs on loopback (D1), so the fuzz cannot write or call out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runZ, tempDir } from "../helpers.ts";
import { INTERNALS, reportCases } from "./_check.ts";
import { anyValue, deepJsonText, fuzzRuns, nastyString, notJsonBytes } from "./arbitraries.ts";

const RUNS = fuzzRuns(1 / 6);

/** Paths a key may name: inside the sandbox (relative to the working directory), or not paths at all. */
const pathValue = fc.oneof(
  fc.constantFrom("data-a", "data-b", "file.txt", "sub/deeper", "./x", ""),
  fc.integer(),
  fc.constant(null),
  fc.array(fc.constant("data-a"), { maxLength: 2 }),
);
const urlValue = fc.oneof(
  fc.constantFrom("http://127.0.0.1:1", "https://127.0.0.1:1/", "ftp://127.0.0.1", "not a url", "http://", ""),
  fc.integer(),
  fc.boolean(),
);
const numberValue = fc.oneof(
  fc.constantFrom(1023, 1024, 65536, 64 * 1024 * 1024, 64 * 1024 * 1024 + 1, 0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER + 2),
  fc.constant("65536"),
  fc.constant(null),
);

/** A config object: known keys with right and wrong values, and unknown keys now and then. */
const configObject = fc
  .record(
    {
      data_dir: pathValue,
      url: urlValue,
      tenant: fc.oneof(fc.constantFrom("local", "other", "", "x".repeat(65)), nastyString, fc.integer()),
      token_file: pathValue,
      object_roots: fc.oneof(fc.array(pathValue, { maxLength: 3 }), pathValue),
      max_inline_bytes: numberValue,
      max_object_bytes: numberValue,
      spill_root: pathValue,
      capture: fc.oneof(
        fc.record(
          {
            enabled: fc.oneof(fc.boolean(), anyValue),
            redact: fc.oneof(fc.boolean(), anyValue),
            max_entries_per_run: fc.oneof(fc.integer({ min: -1, max: 70 }), anyValue),
          },
          { requiredKeys: [] },
        ),
        anyValue,
      ),
    },
    { requiredKeys: [] },
  )
  .chain((rec) =>
    fc
      .option(fc.dictionary(fc.oneof(fc.constantFrom("data_dri", "Capture", "__proto__", "extra"), nastyString), anyValue, { minKeys: 1, maxKeys: 2 }), {
        freq: 4,
      })
      .map((extra) => ({ ...rec, ...(extra ?? {}) })),
  );

/** The file's bytes. */
const configFile = fc.oneof(
  { weight: 8, arbitrary: configObject.map((o) => Buffer.from(JSON.stringify(o))) },
  { weight: 1, arbitrary: notJsonBytes.map((b) => Buffer.from(b)) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      anyValue.map((v) => Buffer.from(JSON.stringify(v) ?? "")),
      fc.constant(Buffer.from(deepJsonText(100_000, "object"))),
      fc.constant(Buffer.from(`\ufeff{}`)),
    ),
  },
);

describe("config.json fuzz (I6, I10)", () => {
  let box: { path: string; [Symbol.dispose](): void };
  let cases = 0;
  const file = () => join(box.path, "zerodb", "config.json");

  beforeAll(() => {
    box = tempDir("zerodb-fuzz-config-");
    mkdirSync(join(box.path, "zerodb"), { recursive: true });
    mkdirSync(join(box.path, "work"));
    writeFileSync(join(box.path, "work", "file.txt"), "x");
  });

  afterAll(() => {
    reportCases("config", cases);
    box?.[Symbol.dispose]();
  });

  test(`${RUNS} generated config files: a clear error naming the key, never a crash, never rewritten; the hook still exits 0`, async () => {
    await fc.assert(
      fc.asyncProperty(configFile, async (bytes) => {
        writeFileSync(file(), bytes);
        const mtime = statSync(file()).mtimeMs;
        const context = `config.json ${JSON.stringify(bytes.toString("utf8").slice(0, 300))}`;
        const cwd = join(box.path, "work");
        const r = await runZ(["stats", "--json"], { home: box.path, cwd });
        cases++;
        expect([0, 1, 2], `exit 0, 1 or 2 only (${context}); stderr: ${r.stderr}`).toContain(r.code);
        expect(r.stderr, `I10: never an internal error (${context})`).not.toContain("internal error");
        expect(r.stderr, `I10: no stack or internals (${context})`).not.toMatch(INTERNALS);
        if (r.code !== 0) {
          expect(r.stderr.trimEnd().split("\n"), `one line on stderr (${context})`).toHaveLength(1);
          const err = JSON.parse(r.stdout).error as { code: string; message: string; field?: string };
          let parsed: unknown;
          let isJson = true;
          try {
            parsed = JSON.parse(bytes.toString("utf8"));
          } catch {
            isJson = false;
          }
          if (!isJson) expect(err.message, `I6: a file that is not JSON says so (${context})`).toContain("not valid JSON");
          else if (err.field?.startsWith("config")) {
            // The named key is one the file really has (or the file itself when it is no object).
            const isObject = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed);
            const keys = isObject ? Object.keys(parsed as object) : [];
            const named = (!isObject && err.field === "config") || keys.some((k) => err.field === `config.${k}` || err.field!.startsWith(`config.${k}.`));
            expect(named, `I6: the error names a key of the file: ${err.field} (${context})`).toBe(true);
            expect(err.message, `I6: the message names the key (${context})`).toContain(err.field);
          }
        }
        const hook = await runZ(["hook", "claude-code"], {
          home: box.path,
          cwd,
          stdin: JSON.stringify({ session_id: "s", transcript_path: join(cwd, "none.jsonl"), cwd, hook_event_name: "Stop" }),
        });
        expect({ code: hook.code, stdout: hook.stdout }, `7.2: the hook exits 0 with nothing on stdout whatever the config (${context})`).toEqual({
          code: 0,
          stdout: "",
        });
        expect(readFileSync(file()).equals(bytes), `the config file is never rewritten (${context})`).toBe(true);
        expect(statSync(file()).mtimeMs, `the config file is never touched (${context})`).toBe(mtime);
      }),
      { numRuns: RUNS },
    );
  }, 240_000);
});
