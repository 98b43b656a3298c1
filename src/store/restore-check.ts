/**
 * What a restore checks of what a backup says, beyond its checksums (issue
 * 29 item 5, DESIGN.md 15). A backup's line sums and trailer are plain
 * SHA-256 that anyone can recompute, so a re-signed file passes them: these
 * checks hold its header, records, tokens and cursors to what zerodb itself
 * writes. Every engine's restore runs them (PostgreSQL's through the SQLite
 * rebuild it starts with); each refusal is one invalid_input naming the
 * field, raised before the restored store is put in place.
 */
import { isAbsolute as isAbsolutePosix } from "node:path/posix";
import { basename as basenameWin, isAbsolute as isAbsoluteWin } from "node:path/win32";
import { ZeroDbError } from "../errors.ts";
import { LSN_RESTORE_MAX } from "../limits.ts";
import type { BackupHeader, CursorRecord, TokenRecord } from "../schema/backup.ts";
import type { TapeRecord } from "../schema/tape.ts";
import { timeProblem } from "./import-check.ts";

function refuse(field: string, message: string): ZeroDbError {
  return new ZeroDbError("invalid_input", `${field}: ${message}`, { field });
}

/** The header's LSNs and time: within what a store can hand out, `after` not past `last_lsn`. */
export function checkHeader(h: BackupHeader): void {
  if (h.last_lsn > LSN_RESTORE_MAX) {
    throw refuse(
      "header.last_lsn",
      `${h.last_lsn} is past the highest lsn a restore takes (${LSN_RESTORE_MAX}): no store reaches it, and its copy would run out of lsns`,
    );
  }
  if (h.after > h.last_lsn) throw refuse("header.after", `${h.after} is past the header's last_lsn ${h.last_lsn}`);
  const problem = timeProblem(h.created);
  if (problem !== undefined) throw refuse("header.created", problem);
  for (const [i, [, from]] of (h.lineage ?? []).entries()) {
    // A fork starts at most one past the snapshot: a restored copy that has not written yet (lineage.ts forkAt).
    if (from > h.last_lsn + 1) throw refuse(`header.lineage.${i}`, `a fork starting at lsn ${from}, past the header's last_lsn ${h.last_lsn}`);
  }
}

/** Who a tenant selection is, for messages. */
function selection(tenant: string | null): string {
  return tenant === null ? "every tenant" : `tenant ${tenant}`;
}

/** What one backup file's lines are checked by; `end()` throws the first thing found wrong. */
export interface FileChecks {
  record(rec: TapeRecord): void;
  token(t: TokenRecord, at: string): void;
  cursor(c: CursorRecord, at: string): void;
  end(): void;
}

/**
 * The checks of one file against its header: each record's LSN after the
 * header's `after` and at most its `last_lsn`, in a tenant's backup every
 * record, token and cursor that tenant's; a backup of every tenant ending
 * where its header says (its `last_lsn` is the store's last record, and
 * records are never deleted from the tape). What is found wrong is kept,
 * not thrown, until `end()`, which the restore calls once the file's
 * trailer digest held: a damaged file is reported as damaged, not as what
 * its damage happens to say.
 */
export function fileChecks(h: BackupHeader): FileChecks {
  let last = h.after;
  let first: ZeroDbError | undefined;
  const keep = (check: () => void) => {
    if (first !== undefined) return;
    try {
      check();
    } catch (err) {
      if (!(err instanceof ZeroDbError)) throw err;
      first = err;
    }
  };
  return {
    record: (rec) =>
      keep(() => {
        const at = `record lsn ${rec.lsn}`;
        if (rec.lsn <= h.after) throw refuse(`${at}.lsn`, `the file holds the records after lsn ${h.after} (its header's after)`);
        if (rec.lsn > h.last_lsn) throw refuse(`${at}.lsn`, `past the header's last_lsn ${h.last_lsn}`);
        if (h.tenant !== null && rec.tenant !== h.tenant)
          throw refuse(`${at}.tenant`, `a record of tenant ${rec.tenant} in a backup of ${selection(h.tenant)}`);
        last = rec.lsn;
      }),
    token: (t, at) => keep(() => checkToken(t, h, at)),
    cursor: (c, at) => keep(() => checkCursor(c, h, at)),
    end() {
      checkHeader(h);
      if (first !== undefined) throw first;
      if (h.tenant === null && h.last_lsn > h.after && last !== h.last_lsn) {
        throw refuse("header.last_lsn", `${h.last_lsn}, but the file's records end at lsn ${last}: a backup of every tenant ends at the store's last record`);
      }
    },
  };
}

/** A token line: of the backup's tenant, its times real ones, revoked no earlier than created. */
export function checkToken(t: TokenRecord, h: BackupHeader, at: string): void {
  if (h.tenant !== null && t.tenant !== h.tenant) throw refuse(`${at}.tenant`, `a token of tenant ${t.tenant} in a backup of ${selection(h.tenant)}`);
  const created = timeProblem(t.created);
  if (created !== undefined) throw refuse(`${at}.created`, created);
  if (t.revoked !== null) {
    const revoked = timeProblem(t.revoked);
    if (revoked !== undefined) throw refuse(`${at}.revoked`, revoked);
    if (t.revoked < t.created) throw refuse(`${at}.revoked`, "before the token was created");
  }
}

/**
 * A cursor line: of the backup's tenant, naming a transcript the way capture
 * names one (src/capture/sources.ts, codex.ts, gemini.ts, opencode.ts).
 * `capture status` reads the file a cursor names (to count the lines behind
 * it), so a cursor naming `/etc/shadow` must never get into a store.
 */
export function checkCursor(c: CursorRecord, h: BackupHeader, at: string): void {
  if (h.tenant !== null && c.tenant !== h.tenant) throw refuse(`${at}.tenant`, `a capture cursor of tenant ${c.tenant} in a backup of ${selection(h.tenant)}`);
  const problem = cursorPathProblem(c.source, c.path);
  if (problem !== undefined) throw refuse(`${at}.path`, `${JSON.stringify(c.path.slice(0, 200))} ${problem}`);
  const updated = timeProblem(c.updated);
  if (updated !== undefined) throw refuse(`${at}.updated`, updated);
}

/** A transcript file's name as Claude Code, Codex (compressed too) and Gemini CLI write it. */
const TRANSCRIPT_NAME = /\.(?:jsonl|jsonl\.zst|json)$/;

/**
 * Why a path is not one a capture cursor names, or undefined: an absolute
 * path (POSIX or Windows: a backup may come from either), no control
 * character, no `.` or `..` segment, ending in a transcript's file name.
 * An opencode session's cursor names opencode's database, whose name
 * `$OPENCODE_DB` may choose freely (src/capture/opencode-db.ts): it needs
 * only to be such a path, and `capture status` never reads it.
 */
export function cursorPathProblem(source: string, path: string): string | undefined {
  if (!isAbsolutePosix(path) && !isAbsoluteWin(path)) return "is not an absolute path";
  if (/[\u0000-\u001f\u007f]/.test(path)) return "holds a control character";
  if (path.split(/[/\\]/).some((s) => s === "." || s === "..")) return "holds a . or .. segment";
  if (source.startsWith("opencode:")) return undefined;
  return TRANSCRIPT_NAME.test(basenameWin(path)) ? undefined : "is not a transcript (a .jsonl, .jsonl.zst or .json file)";
}

/** A live object record's size against the bytes the backup holds for its digest (`then`: what became of the restore). */
export function checkObjectSize(rec: { lsn: number; object: string; size: number }, bytes: number, then?: string): void {
  if (rec.size === bytes) return;
  const field = `record lsn ${rec.lsn}.size`;
  throw refuse(field, `object ${rec.object} says ${rec.size} bytes, its bytes are ${bytes}${then ? `; ${then}` : ""}`);
}
