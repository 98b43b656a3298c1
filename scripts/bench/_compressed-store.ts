/**
 * Built stores for the compression section (issue 20, D7): copies of a
 * store (`VACUUM INTO`) whose tape payload is rewritten the way a compressed
 * format would keep it, then vacuumed, so bytes on disk are real file sizes
 * (b-tree pages, the word index, every other index), not estimates from
 * payload sizes. And zstd dictionaries: Bun.zstdCompressSync takes no
 * dictionary (an option passed is ignored, checked here each run); node:zlib's
 * zstd in Bun does take one, verified by a round trip.
 */
import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import zlib from "node:zlib";

/** A live row's payload as a compressed format would hold it: text, a NUL, data. */
export interface Payload {
  lsn: number;
  session: string | null;
  bytes: Buffer;
}

/** The store's payloads, in LSN order. */
export function payloadsOf(db: Database): Payload[] {
  const rows = db.query("SELECT lsn, subject, text, data FROM tape WHERE forgotten_by IS NULL ORDER BY lsn").all() as {
    lsn: number;
    subject: string | null;
    text: string | null;
    data: string | null;
  }[];
  return rows.map((r) => ({ lsn: r.lsn, session: r.subject, bytes: Buffer.from(`${r.text ?? ""}\u0000${r.data ?? ""}`, "utf8") }));
}

/** zstd at a level, with a dictionary through node:zlib (Bun's own API has none). */
export function compressor(level: number, dictionary?: Buffer): (b: Buffer) => Buffer {
  if (!dictionary) return (b) => Bun.zstdCompressSync(b, { level });
  const params = { [zlib.constants.ZSTD_c_compressionLevel]: level };
  return (b) => zlib.zstdCompressSync(b, { params, dictionary } as zlib.ZstdOptions);
}

/** Decompression matching `compressor`. */
export function decompressor(dictionary?: Buffer): (b: Buffer) => Buffer {
  if (!dictionary) return (b) => Bun.zstdDecompressSync(b);
  return (b) => zlib.zstdDecompressSync(b, { dictionary } as zlib.ZstdOptions);
}

/**
 * What the dictionary APIs do with a dictionary: whether Bun.zstdCompressSync
 * ignores one (its output is byte for byte the output without), and whether
 * node:zlib's output with one round-trips only with the dictionary.
 */
export function dictionarySupport(dictionary: Buffer, sample: Buffer): { bunIgnores: boolean; zlibRoundTrip: boolean; zlibNeedsDict: boolean } {
  const plain = Bun.zstdCompressSync(sample, { level: 3 });
  const bunWith = Bun.zstdCompressSync(sample, { level: 3, dictionary } as { level: number });
  const withDict = compressor(3, dictionary)(sample);
  let needsDict = false;
  try {
    zlib.zstdDecompressSync(withDict);
  } catch {
    needsDict = true;
  }
  return {
    bunIgnores: Buffer.compare(plain, bunWith) === 0,
    zlibRoundTrip: Buffer.compare(decompressor(dictionary)(withDict), sample) === 0,
    zlibNeedsDict: needsDict,
  };
}

/**
 * A dictionary trained by the zstd CLI (`zstd --train`, ZDICT) on samples, or
 * undefined when there is no zstd CLI (Bun cannot train one).
 */
export function trainDictionary(samples: Buffer[], dir: string, maxBytes = 112_640): Buffer | undefined {
  if (!Bun.which("zstd")) return undefined;
  const root = join(dir, "dict-samples");
  mkdirSync(root, { recursive: true });
  for (const [i, s] of samples.entries()) writeFileSync(join(root, String(i)), s);
  const out = join(dir, "trained.dict");
  const p = Bun.spawnSync(["zstd", "--train", "-q", "-r", root, "-o", out, `--maxdict=${maxBytes}`], { stderr: "pipe" });
  return p.exitCode === 0 ? readFileSync(out) : undefined;
}

/** How a built copy keeps its payload. */
export type Layout = { perTurn: (b: Buffer) => Buffer } | { perPage: (b: Buffer) => Buffer; rows: number };

/**
 * Bytes on disk of a copy of `db` whose payload is kept as `layout` says
 * (per turn: each row's text and data replaced by one blob, kept raw when
 * zstd does not shrink it; per page: consecutive rows' payloads in one blob
 * in a table of pages), vacuumed. Without a layout: the copy as it is,
 * vacuumed, for the baseline.
 */
export function builtCopy(db: Database, payloads: Payload[], path: string, layout?: Layout): number {
  db.run(`VACUUM INTO '${path.replaceAll("'", "''")}'`);
  const copy = new Database(path);
  try {
    if (layout) {
      copy.run("BEGIN");
      if ("perTurn" in layout) {
        const put = copy.query("UPDATE tape SET text = NULL, data = ? WHERE lsn = ?");
        for (const p of payloads) {
          const z = layout.perTurn(p.bytes);
          put.run(z.length < p.bytes.length ? z : p.bytes, p.lsn);
        }
      } else {
        copy.run("CREATE TABLE zpages (first_lsn INTEGER PRIMARY KEY, body BLOB NOT NULL)");
        const page = copy.query("INSERT INTO zpages (first_lsn, body) VALUES (?, ?)");
        for (let i = 0; i < payloads.length; i += layout.rows) {
          const rows = payloads.slice(i, i + layout.rows);
          page.run(rows[0]!.lsn, layout.perPage(Buffer.concat(rows.map((r) => r.bytes))));
        }
        copy.run("UPDATE tape SET text = NULL, data = NULL");
      }
      copy.run("COMMIT");
    }
    copy.run("VACUUM");
  } finally {
    copy.close();
  }
  return statSync(path).size;
}

/** Bytes of each table and index of a database file, largest first (SQLite's dbstat). */
export function breakdown(path: string): { name: string; bytes: number }[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.query("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC").all() as { name: string; bytes: number }[];
  } finally {
    db.close();
  }
}

/**
 * Reading a page of 100 turns of a session from a built copy: the rows, and
 * the payload decompressed when the copy keeps it compressed per turn. The
 * p50 over every session, in microseconds.
 */
export function readPageUs(path: string, sessions: string[], decompress?: (b: Buffer) => Buffer): number {
  const db = new Database(path, { readonly: true });
  const q = db.query(
    "SELECT lsn, text, data FROM tape WHERE tenant = 'local' AND kind = 'turn' AND subject = ? AND forgotten_by IS NULL ORDER BY lsn LIMIT 100",
  );
  const times: number[] = [];
  try {
    for (let round = 0; round < 3; round++) {
      for (const s of sessions) {
        const t = performance.now();
        const rows = q.all(s) as { text: string | null; data: Uint8Array | string | null }[];
        if (decompress) {
          for (const r of rows) {
            const blob = r.data as Uint8Array;
            // Kept raw when zstd did not shrink it: the frame magic tells the two apart.
            if (blob[0] === 0x28 && blob[1] === 0xb5 && blob[2] === 0x2f && blob[3] === 0xfd) decompress(Buffer.from(blob));
          }
        }
        times.push((performance.now() - t) * 1000);
      }
    }
  } finally {
    db.close();
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}
