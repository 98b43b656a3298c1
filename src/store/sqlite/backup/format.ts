/**
 * The backup file format (issue 20, DESIGN.md 15), version 2. A stream of
 * lines and raw byte frames, so object bytes travel unencoded:
 *
 *   ZERODB-BACKUP 2 {"store_id":…,"tenant":…|null,"after":A,"last_lsn":N,"lineage":[[id,lsn],…],"created":ISO}\n
 *   R <sum> <record JSON>\n                 one per tape record after A, in LSN order
 *   T <sum> <token JSON>\n                  one per HTTP token: its digest, never the secret
 *   C <sum> <cursor JSON>\n                 one per capture cursor
 *   O sha256:<hex> <size>\n<size raw bytes>\n   one per object the records reference
 *   END {"records":n,"tokens":t,"cursors":c,"objects":m,"sha256":<hex>}\n
 *
 * A full backup has `after` 0; an increment holds only the records after
 * its `after` and the objects they reference, and is restored on top of the
 * backups it continues. Tokens and cursors are state, not history: every
 * file holds all of them as of its snapshot. `<sum>` is the first 16 bytes
 * (hex) of SHA-256 over the line's JSON's exact bytes; an object's digest is
 * its content address; the trailer's sha256 covers every byte before the END
 * line, and the file ends right after it, so a truncated, extended or edited
 * file is refused. Version 1 (no `after`, `lineage`, tokens or cursors) is
 * still read.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { ZeroDbError } from "../../../errors.ts";
import { type BackupHeader, backupSchemas } from "../../../schema/backup.ts";
import { sha256Hex } from "../../../util/hash.ts";

/** The format's magic word, the first line's start. */
export const BACKUP_MAGIC = "ZERODB-BACKUP";
/** The version this build writes. */
export const BACKUP_VERSION = 2;
/** The versions this build reads. */
const READS = [1, 2];

/** A line's checksum (records, tokens, cursors): 16 bytes of SHA-256 over the JSON, as hex. */
export function recordSum(json: string): string {
  return sha256Hex(json).slice(0, 32);
}

/** A damaged-backup error naming what failed. */
export function damaged(what: string): ZeroDbError {
  return new ZeroDbError("corrupt", `the backup is damaged or truncated: ${what}`);
}

/** An error about a backup's contents, naming the file it is in (and what became of the work, `then`). */
export function inFile(err: unknown, file: string, then?: string): unknown {
  if (!(err instanceof ZeroDbError) || !["corrupt", "invalid_input", "conflict"].includes(err.code)) return err;
  const named = err.message.startsWith(`${file}: `) ? err.message : `${file}: ${err.message}`;
  return new ZeroDbError(err.code, then ? `${named}; ${then}` : named, { field: err.field, cause: err });
}

/**
 * Reads a backup file sequentially: lines and exact byte counts, hashing
 * every byte it hands out (until `stopHashing`) for the trailer check.
 */
export interface BackupReader {
  /** The next line without its newline, or undefined at the end of the file. */
  line(): string | undefined;
  /** The next `n` bytes, in chunks; damaged() when the file ends first. */
  bytes(n: number, what: string): Generator<Uint8Array>;
  /** The hex SHA-256 of every byte before the END line (once that line was read). */
  digestBeforeTrailer(): string | undefined;
  /** True when no byte is left. */
  atEnd(): boolean;
  close(): void;
}

const CHUNK = 1 << 20;

/** Opens a backup file for reading. */
export function openBackupReader(path: string): BackupReader {
  const fd = openSync(path, "r");
  const hasher = new Bun.CryptoHasher("sha256");
  let buf = Buffer.alloc(0);
  let eof = false;
  let beforeTrailer: string | undefined;
  const fill = (): boolean => {
    if (eof) return false;
    const chunk = Buffer.alloc(CHUNK);
    const n = readSync(fd, chunk, 0, CHUNK, null);
    if (n === 0) {
      eof = true;
      return false;
    }
    buf = buf.length ? Buffer.concat([buf, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    return true;
  };
  const take = (n: number): Buffer => {
    const out = buf.subarray(0, n);
    buf = buf.subarray(n);
    hasher.update(out);
    return out;
  };
  return {
    line() {
      for (;;) {
        const i = buf.indexOf(10);
        if (i !== -1) {
          if (buf.subarray(0, 4).toString("latin1") === "END ") beforeTrailer = hasher.copy().digest("hex");
          const out = take(i + 1);
          return out.subarray(0, i).toString("utf8");
        }
        if (!fill()) {
          if (buf.length === 0) return undefined;
          // A last line without its newline: a truncated file. The NUL mark keeps it from
          // ever passing as a whole frame (a record's sum, the trailer's JSON).
          return `${take(buf.length).toString("utf8")}\u0000truncated`;
        }
      }
    },
    *bytes(n, what) {
      let left = n;
      while (left > 0) {
        if (buf.length === 0 && !fill()) throw damaged(`${what} ends after ${n - left} of its ${n} bytes`);
        const out = take(Math.min(left, buf.length));
        left -= out.length;
        yield Uint8Array.from(out);
      }
    },
    digestBeforeTrailer: () => beforeTrailer,
    atEnd: () => buf.length === 0 && !fill(),
    close: () => closeSync(fd),
  };
}

/** Reads and checks the header line of an open backup. */
export function readHeader(reader: BackupReader): BackupHeader {
  const first = reader.line();
  const prefix = `${BACKUP_MAGIC} `;
  if (first === undefined || !first.startsWith(prefix))
    throw new ZeroDbError("invalid_input", "not a zerodb backup (no ZERODB-BACKUP header)", { field: "file" });
  const [version, ...rest] = first.slice(prefix.length).split(" ");
  if (!READS.includes(Number(version))) {
    throw new ZeroDbError("invalid_input", `backup format version ${version}; this zerodb reads versions ${READS.join(" and ")}`, { field: "file" });
  }
  let json: unknown;
  try {
    json = JSON.parse(rest.join(" "));
  } catch {
    throw damaged("the header line");
  }
  const h = backupSchemas().BackupHeader.safeParse(json);
  if (!h.success || h.data.after > h.data.last_lsn) throw damaged("the header line");
  return h.data;
}

/** Opens a backup file, a missing or unreadable one being one clear error naming it. */
export function openBackup(file: string, field = "file"): BackupReader {
  try {
    return openBackupReader(file);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new ZeroDbError(code === "ENOENT" ? "not_found" : "invalid_input", `cannot read ${file} (${code ?? "error"})`, { field });
  }
}

/** The header of a backup file alone (backup --since). */
export function headerOf(file: string, field = "file"): BackupHeader {
  const reader = openBackup(file, field);
  try {
    return readHeader(reader);
  } catch (err) {
    throw inFile(err, file);
  } finally {
    reader.close();
  }
}
