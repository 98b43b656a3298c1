/**
 * `zerodb export --format markdown|json` (DESIGN.md section 17): sessions a
 * person reads, or one session's turns for a script, read through the
 * tenant's memory (so `--url` works too) and `--as-of` a point. The JSONL
 * tape stays the backup format (export.ts).
 */
import { resolve } from "node:path";
import { invalid } from "../errors.ts";
import { prefixMarkdown, sessionMarkdown } from "../history/markdown.ts";
import { allTurns } from "../history/read-all.ts";
import { ReadInput, SessionsInput } from "../schema/ops.ts";
import { parseInput } from "../schema/parse.ts";
import type { Turn } from "../schema/results.ts";
import type { Memory } from "../store/types.ts";
import { writeAtomic } from "../util/atomic.ts";
import { outExists } from "./new-file.ts";
import { writeOut } from "./stdout.ts";

/** What a readable export was asked for, checked. */
export interface ReadableExport {
  format: "markdown" | "json";
  session?: string;
  prefix?: string;
  asOf?: string;
  resultChars?: number;
  out?: string;
}

/** Checks the flags before any store is opened (I6): bad input writes nothing. */
export function checkReadable(e: ReadableExport): void {
  if (e.session !== undefined && e.prefix !== undefined) throw invalid("session", "give --session or --session-prefix, not both");
  if (e.format === "json" && e.session === undefined) throw invalid("session", "--format json exports one session's turns: give --session");
  // The schemas of read and sessions name the field exactly as the operation would.
  if (e.session !== undefined) parseInput(ReadInput, { session: e.session, ...(e.asOf !== undefined ? { as_of: e.asOf } : {}) });
  else parseInput(SessionsInput, { ...(e.prefix !== undefined ? { prefix: e.prefix } : {}), ...(e.asOf !== undefined ? { as_of: e.asOf } : {}) });
}

/** Every session name under a prefix at the point asked, in name order. */
async function allSessions(m: Memory, prefix: string | undefined, asOf: string | undefined): Promise<string[]> {
  const names: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await m.sessions({
      limit: 1000,
      ...(prefix !== undefined ? { prefix } : {}),
      ...(after !== undefined ? { after } : {}),
      ...(asOf !== undefined ? { as_of: asOf } : {}),
    });
    names.push(...page.sessions.map((s) => s.name));
    if (page.next === null) return names;
    after = page.next;
  }
}

/** Runs a readable export: the document to stdout (undefined back) or into a new file (its counts back). */
export async function runReadable(m: Memory, e: ReadableExport): Promise<{ sessions: number; turns: number; out: string } | undefined> {
  const opts = e.resultChars !== undefined ? { resultChars: e.resultChars } : {};
  let text: string;
  let sessions = 1;
  let turns = 0;
  if (e.session !== undefined) {
    const t = await allTurns(m, e.session, e.asOf);
    turns = t.length;
    if (t.length === 0 && e.format === "markdown") {
      // A session that does not exist (or not at that point) is told apart from an empty document.
      throw invalid("session", `no turns in session ${JSON.stringify(e.session)}${e.asOf !== undefined ? ` as of ${e.asOf}` : ""}`);
    }
    text = e.format === "json" ? `${JSON.stringify(t)}\n` : sessionMarkdown(e.session, t, opts);
  } else {
    const names = await allSessions(m, e.prefix, e.asOf);
    const all: { name: string; turns: Turn[] }[] = [];
    for (const name of names) all.push({ name, turns: await allTurns(m, name, e.asOf) });
    sessions = all.length;
    turns = all.reduce((n, s) => n + s.turns.length, 0);
    text = prefixMarkdown(e.prefix, all, opts);
  }
  if (e.out === undefined) {
    await writeOut(text);
    return undefined;
  }
  const out = resolve(e.out);
  try {
    await writeAtomic(out, [text], { publish: "new" });
  } catch (err) {
    if ((err as { code?: string }).code === "EEXIST") throw outExists(out, "export");
    throw err;
  }
  return { sessions, turns, out };
}
