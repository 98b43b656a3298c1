/**
 * Reading and writing harness config files safely (DESIGN.md 7.1): the new
 * text goes to a temp file beside the target and is renamed over it, so a
 * harness (Claude Code rewrites ~/.claude.json often) reads the old file or
 * the new one, never half of each; the file keeps its mode; the previous
 * bytes are kept in `<file>.zerodb-backup`; a symlinked file is written
 * through the link, not replaced by a copy.
 */
import { mkdirSync, readFileSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { fsyncDir, writeFileAtomic } from "../util/atomic.ts";

/** Suffix of the one backup kept beside each file zerodb edits. */
export const BACKUP_SUFFIX = ".zerodb-backup";

/** A config file as read: where it really is, its bytes and mode (undefined text: no file yet). */
export interface FileState {
  /** The path named by the harness. */
  path: string;
  /** The file written: `path` with symlinks resolved. */
  real: string;
  text?: string;
  bytes?: Uint8Array;
  mode?: number;
}

/** The file changed between our read and our write: someone else is editing it. */
export class ChangedUnderfootError extends Error {
  constructor(path: string) {
    super(`${path} changed while zerodb was editing it; nothing was written: run the command again`);
    this.name = "ChangedUnderfootError";
  }
}

/** Reads a config file (missing is fine; a directory or unreadable file throws). */
export function readState(path: string): FileState {
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // A missing file (or a dangling link) is written where it is named.
  }
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(real);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return { path, real };
    throw err;
  }
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  return { path, real, text, bytes, mode: statSync(real).mode & 0o7777 };
}

/** The text of a file's backup (`suffix`: a job's own backup of a file two jobs edit), or undefined. */
export function readBackup(state: FileState, suffix = BACKUP_SUFFIX): string | undefined {
  try {
    return readFileSync(state.real + suffix, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Replaces the file read as `state` with `text` (undefined: removes it):
 * first the backup (the bytes before this change), then the file itself,
 * each atomically.
 */
export function writeState(state: FileState, text: string | undefined, suffix = BACKUP_SUFFIX): void {
  const dir = dirname(state.real);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let now: Uint8Array | undefined;
  try {
    now = readFileSync(state.real);
  } catch {
    now = undefined;
  }
  const same = now === undefined ? state.bytes === undefined : state.bytes !== undefined && Buffer.compare(Buffer.from(now), Buffer.from(state.bytes)) === 0;
  if (!same) throw new ChangedUnderfootError(state.path);
  // An empty backup records that there was no file: disconnect can then remove the file it created.
  // Each write has exactly the file's mode (fchmod: the umask is not trusted).
  writeFileAtomic(state.real + suffix, state.bytes ?? new Uint8Array(0), { mode: state.mode ?? 0o600 });
  if (text === undefined) {
    unlinkSync(state.real);
    fsyncDir(dir);
    return;
  }
  // A new file is private: harness configs can hold tokens of other servers.
  writeFileAtomic(state.real, text, { mode: state.mode ?? 0o600 });
}
