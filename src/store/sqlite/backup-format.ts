/**
 * The backup file format (issue 20, DESIGN.md 15), version 1. A stream of
 * lines and raw byte frames, so object bytes travel unencoded:
 *
 *   ZERODB-BACKUP 1 {"store_id":…,"tenant":…|null,"last_lsn":N,"created":ISO}\n
 *   R <sum> <record JSON>\n                 one per tape record, in LSN order
 *   O sha256:<hex> <size>\n<size raw bytes>\n   one per object the records reference
 *   END {"records":n,"objects":m,"sha256":<hex>}\n
 *
 * `<sum>` is the first 16 bytes (hex) of SHA-256 over the record JSON's exact
 * bytes; an object's digest is its content address; the trailer's sha256
 * covers every byte before the END line, and the file ends right after it, so
 * a truncated, extended or edited file is refused.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { ZeroDbError } from "../../errors.ts";
import { sha256Hex } from "../../util/hash.ts";

/** The format's magic word and version, the first line's start. */
export const BACKUP_MAGIC = "ZERODB-BACKUP";
/** The version this build writes and reads. */
export const BACKUP_VERSION = 1;

/** The first line's JSON. */
export interface BackupHeader {
  store_id: string;
  tenant: string | null;
  last_lsn: number;
  created: string;
}

/** The trailer's JSON. */
export interface BackupTrailer {
  records: number;
  objects: number;
  sha256: string;
}

/** A record line's checksum: 16 bytes of SHA-256 over the JSON, as hex. */
export function recordSum(json: string): string {
  return sha256Hex(json).slice(0, 32);
}

/** A damaged-backup error naming what failed. */
export function damaged(what: string): ZeroDbError {
  return new ZeroDbError("corrupt", `the backup is damaged or truncated: ${what}; nothing was restored`);
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
