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

/**
 * A dictionary holding no user's bytes: the skeletons of the JSON zerodb
 * itself writes for a captured turn (role, meta key names, kinds) and the
 * prefixes capture puts before a turn's text. Shipped in the binary, it
 * would keep no forgotten byte (I9), unlike one trained on the user's turns.
 */
export function staticDictionary(): Buffer {
  const meta = (role: string, type: string, kind: string, extra = "") =>
    `{"role":"${role}","meta":{"type":"${type}","uuid":"","parentUuid":"","timestamp":"2026-01-01T00:00:00.000Z",${extra}"position":,"kind":"${kind}","redaction":"off"}}`;
  const skeletons = [
    '{"role":"user","meta":{"redaction":"off"}}',
    meta("note", "queue-operation", "system", ""),
    meta("note", "file-history-snapshot", "system", ""),
    meta("note", "last-prompt", "system", ""),
    meta("system", "attachment", "system", '"subtype":"",'),
    '"noise":"bookkeeping",',
    meta("user", "user", "prompt"),
    meta("assistant", "assistant", "reply", '"message_id":"msg_",'),
    meta("tool", "user", "tool_result", '"tool_use_ids":["toolu_"],'),
    meta("assistant", "assistant", "tool_call", '"message_id":"msg_","tools":["Bash"],"tool_use_ids":["toolu_"],'),
    "[tool_result]\n[tool_result error]\n[thinking]\n[attachment] ",
    ...["Bash", "Edit", "Read", "Grep", "Glob", "Write", "Task", "WebFetch", "TodoWrite"].map((t) => `[tool_use ${t}]\n`),
    '{"command":"","description":""}{"file_path":"","old_string":"","new_string":""}{"pattern":"","path":"","output_mode":"content"}',
  ];
  return Buffer.from(skeletons.join(""));
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

/** What a table or index of a database file holds (SQLite's dbstat): pages, cell payload, free bytes in its pages. */
export interface Part {
  name: string;
  /** Bytes of its pages. */
  bytes: number;
  /** Bytes of the cells' records (keys and columns). */
  payload: number;
  /** Bytes of its pages that hold nothing (page slack). */
  unused: number;
}

/** Every table and index of a database file with what its pages hold, largest first. */
export function parts(path: string): Part[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .query("SELECT name, sum(pgsize) AS bytes, sum(payload) AS payload, sum(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC")
      .all() as Part[];
  } finally {
    db.close();
  }
}

/**
 * Bytes the tape's live rows keep in each of their columns, as stored (an
 * integer as its SQLite varint-sized serial type, text and blobs as their
 * bytes), and the rest of each record: its header and rowid.
 */
export function tapeColumns(path: string): { column: string; bytes: number }[] {
  const db = new Database(path, { readonly: true });
  try {
    const cols = (db.query("SELECT name, type FROM pragma_table_info('tape')").all() as { name: string; type: string }[]).filter((c) => c.name !== "lsn");
    // SQLite's integer serial types: 0 bytes for 0 and 1, then 1, 2, 3, 4, 6 or 8 bytes by magnitude.
    const intBytes = (c: string) =>
      `CASE WHEN ${c} IS NULL OR ${c} IN (0, 1) THEN 0 WHEN abs(${c}) < 128 THEN 1 WHEN abs(${c}) < 32768 THEN 2 WHEN abs(${c}) < 8388608 THEN 3 WHEN abs(${c}) < 2147483648 THEN 4 WHEN abs(${c}) < 140737488355328 THEN 6 ELSE 8 END`;
    const size = (c: { name: string; type: string }) => (c.type === "INTEGER" ? intBytes(c.name) : `coalesce(length(CAST(${c.name} AS BLOB)), 0)`);
    const row = db.query(`SELECT ${cols.map((c) => `sum(${size(c)}) AS "${c.name}"`).join(", ")} FROM tape`).get() as Record<string, number>;
    const payload = (db.query("SELECT sum(payload) AS n FROM dbstat WHERE name = 'tape'").get() as { n: number }).n;
    const columns = cols.map((c) => ({ column: c.name, bytes: row[c.name] ?? 0 }));
    const inColumns = columns.reduce((n, c) => n + c.bytes, 0);
    return [...columns, { column: "record headers", bytes: payload - inColumns }];
  } finally {
    db.close();
  }
}

/**
 * Bytes on disk of a copy of a database file changed by `sql` (dropping an
 * index, a page size), vacuumed outside WAL mode so a page size takes effect:
 * what a part costs, or what a setting would save, as a real file size.
 */
export function variantCopy(source: string, path: string, steps: (string | ((db: Database) => void))[]): number {
  const db = new Database(source, { readonly: true });
  try {
    db.run(`VACUUM INTO '${path.replaceAll("'", "''")}'`);
  } finally {
    db.close();
  }
  const copy = new Database(path);
  try {
    copy.run("PRAGMA journal_mode = DELETE");
    copy.run("BEGIN");
    for (const step of steps.filter((x) => typeof x !== "string" || !x.startsWith("PRAGMA"))) typeof step === "string" ? copy.run(step) : step(copy);
    copy.run("COMMIT");
    // A page size takes effect at the VACUUM that follows it, outside a transaction.
    for (const step of steps.filter((x) => typeof x === "string" && x.startsWith("PRAGMA"))) copy.run(step as string);
    copy.run("VACUUM");
  } finally {
    copy.close();
  }
  return statSync(path).size;
}

/**
 * Turns keep their session's id (the sessions table's key, which already
 * names one tenant's session) instead of its name, and are paged by an
 * index on that id: what interning session names would save.
 */
export const internSessions = [
  "ALTER TABLE tape ADD COLUMN sid INTEGER",
  "UPDATE tape SET sid = (SELECT id FROM sessions s WHERE s.tenant = tape.tenant AND s.name = tape.subject), subject = NULL WHERE kind = 'turn'",
  "DROP INDEX tape_subject",
  "CREATE INDEX tape_subject ON tape (tenant, kind, subject) WHERE forgotten_by IS NULL AND subject IS NOT NULL",
  "CREATE INDEX tape_session ON tape (sid) WHERE forgotten_by IS NULL AND sid IS NOT NULL",
];

/**
 * Live idempotency keys kept only as 16-byte digests, unique per store (the
 * digest covers the tenant), as forgotten rows' keys already are.
 */
export function digestKeys(db: Database, digest: (tenant: string, key: string) => Uint8Array): void {
  db.run("DROP INDEX tape_idem");
  db.run("DROP INDEX tape_idem_digest");
  const put = db.query("UPDATE tape SET idem_digest = ?, idem_key = NULL WHERE lsn = ?");
  for (const r of db.query("SELECT lsn, tenant, idem_key FROM tape WHERE idem_key IS NOT NULL").all() as { lsn: number; tenant: string; idem_key: string }[])
    put.run(digest(r.tenant, r.idem_key).subarray(0, 16), r.lsn);
  db.run("CREATE UNIQUE INDEX tape_idem_digest ON tape (idem_digest) WHERE idem_digest IS NOT NULL");
}

/** Each row's text and data replaced by one zstd blob (kept raw when it does not shrink), as builtCopy's per-turn layout. */
export function compressPayload(db: Database, compress: (b: Buffer) => Buffer): void {
  const put = db.query("UPDATE tape SET text = NULL, data = ? WHERE lsn = ?");
  for (const r of db.query("SELECT lsn, text, data FROM tape WHERE forgotten_by IS NULL").all() as {
    lsn: number;
    text: string | null;
    data: string | null;
  }[]) {
    const raw = Buffer.from(`${r.text ?? ""}\u0000${r.data ?? ""}`, "utf8");
    const z = compress(raw);
    put.run(z.length < raw.length ? z : raw, r.lsn);
  }
}

/** The word index rebuilt with FTS5's `detail` option (https://sqlite.org/fts5.html#the_detail_option), from each row's index text. */
export function reindexWithDetail(db: Database, detail: "full" | "column" | "none", index: (row: { tenant: string; text: string }) => [string, string]): void {
  db.run("DROP TABLE words");
  db.run(
    `CREATE VIRTUAL TABLE words USING fts5 (body, tenant, content = '', columnsize = 0, detail = ${detail}, tokenize = 'porter unicode61 remove_diacritics 2')`,
  );
  const put = db.query("INSERT INTO words (rowid, body, tenant) VALUES (?, ?, ?)");
  for (const r of db.query("SELECT lsn, tenant, text FROM tape WHERE text IS NOT NULL AND forgotten_by IS NULL").iterate() as IterableIterator<{
    lsn: number;
    tenant: string;
    text: string;
  }>)
    put.run(r.lsn, ...index(r));
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
