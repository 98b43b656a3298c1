/**
 * What every door fuzz checks of an answer, in one place: the error document
 * of DESIGN.md 6.1 (I6: the field is named; I10: no stack, SQL or path), and
 * a way to read a store's last LSN without going through zerodb.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect } from "bun:test";
import { CODES } from "../../src/errors.ts";

/** Text no answer, message or log line may hold: stack frames, SQL errors, source paths (I10). */
export const INTERNALS =
  /SQLITE|SQLiteError|\bat \S+ \(|\n\s+at |\.ts:\d+|node_modules|\$bunfs|RangeError|TypeError|ReferenceError|SyntaxError|Maximum call stack/;

/**
 * Checks an error document `{"error": {code, message, field?}}` and returns it.
 * `context` goes into every assertion message, so a failure says which input it was.
 */
export function expectErrorDoc(
  doc: unknown,
  context: string,
  opts: { status?: number; forbidden?: string[] } = {},
): { code: string; message: string; field?: string } {
  const err = (doc as { error?: unknown })?.error as { code: string; message: string; field?: string } | undefined;
  expect(doc !== null && typeof doc === "object" && Object.keys(doc as object).join(","), `I6/I10: one "error" key (${context})`).toBe("error");
  expect(err && Object.keys(err).every((k) => ["code", "message", "field"].includes(k)), `I10: only code, message, field (${context})`).toBe(true);
  expect(Object.hasOwn(CODES, err!.code), `I6: a code of the closed set, got ${err!.code} (${context})`).toBe(true);
  if (opts.status !== undefined)
    expect(CODES[err!.code as keyof typeof CODES].status as number, `the status of code ${err!.code} (${context})`).toBe(opts.status);
  expect(typeof err!.message === "string" && err!.message.length > 0, `a message (${context})`).toBe(true);
  expect(err!.message, `I10: no internals in the message (${context})`).not.toMatch(INTERNALS);
  for (const f of opts.forbidden ?? []) expect(err!.message.includes(f), `I10: the message does not show ${f} (${context})`).toBe(false);
  if (err!.code === "invalid_input" || err!.code === "too_large") {
    expect(typeof err!.field === "string" && err!.field.length > 0, `I6: ${err!.code} names its field (${context})`).toBe(true);
  }
  expect(err!.code, `I10: never an internal error (${context})`).not.toBe("internal");
  return err!;
}

/** The last LSN of a data dir's store, read directly (0 when there is no store yet). */
export function lastLsn(dataDir: string): number {
  const file = join(dataDir, "zerodb.sqlite");
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true });
  try {
    return (db.query("SELECT coalesce(max(lsn), 0) AS n FROM tape").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** The number of tokens in a data dir's store, read directly. */
export function tokenCount(dataDir: string): number {
  const file = join(dataDir, "zerodb.sqlite");
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM tokens").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** PRAGMA integrity_check of a data dir's store. */
export function integrity(dataDir: string): string {
  const db = new Database(join(dataDir, "zerodb.sqlite"), { readonly: true });
  try {
    return (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}

/** Prints a suite's case count in one greppable line (the README's figures are counted from these). */
export function reportCases(suite: string, cases: number, extra = ""): void {
  console.log(`fuzz-cases ${suite}: ${cases}${extra ? ` ${extra}` : ""}`);
}
