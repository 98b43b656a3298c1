/**
 * One backup file of a restore (issue 20, DESIGN.md 15), read after its
 * header: its records through import's rules (into an empty store, or the
 * one the files before it rebuilt, which an increment continues), its tokens
 * and capture cursors, its objects, each checked against its digest, and its
 * trailer's counts and digest of the whole file. Any failure throws; the
 * caller discards the temp store.
 */
import type { Database } from "bun:sqlite";
import type { z } from "zod";
import type { BlobStore } from "../../../objects/types.ts";
import { type BackupHeader, type BackupTrailer, type CursorRecord, type TokenRecord, backupSchemas } from "../../../schema/backup.ts";
import { fileChecks } from "../../restore-check.ts";
import { type BackupReader, damaged, recordSum } from "./format.ts";
import { importRecords } from "../transfer.ts";

/** What one file held. */
export interface FileCounts {
  records: number;
  tokens: number;
  cursors: number;
  objects: number;
}

/** Restores the rest of a file whose header `reader` has read (`header`). */
export async function restoreFile(db: Database, reader: BackupReader, blobs: BlobStore, header: BackupHeader): Promise<FileCounts> {
  let pending: string | undefined;
  let line = 1;
  let records = 0;
  const next = () => {
    pending = reader.line();
    line++;
  };
  async function* recordLines(): AsyncGenerator<unknown> {
    for (next(); pending?.startsWith("R "); next()) {
      const value = checked(pending, line, "record");
      records++;
      yield value;
    }
  }
  // What the lines mean, beyond their sums (issue 29 item 5): judged once the trailer's digest held.
  const meaning = fileChecks(header);
  await importRecords(db, recordLines(), { check: meaning.record });
  const tokens: TokenRecord[] = [];
  for (; pending?.startsWith("T "); next()) {
    const t = stateLine(pending, line, backupSchemas().TokenRecord, "token");
    meaning.token(t, `token line ${line}`);
    tokens.push(t);
  }
  const cursors: CursorRecord[] = [];
  for (; pending?.startsWith("C "); next()) {
    const c = stateLine(pending, line, backupSchemas().CursorRecord, "capture cursor");
    meaning.cursor(c, `cursor line ${line}`);
    cursors.push(c);
  }
  const seen = new Set<string>();
  for (; pending?.startsWith("O "); next()) {
    const m = /^O (sha256:[0-9a-f]{64}) (\d{1,16})$/.exec(pending);
    if (!m) throw damaged(`line ${line}: a malformed object frame`);
    const digest = m[1]!;
    if (seen.has(digest)) throw damaged(`object ${digest} appears twice`);
    seen.add(digest);
    await restoreObject(db, reader, blobs, { digest, size: Number(m[2]) });
  }
  const trailer = readTrailer(pending, line);
  const whole = reader.digestBeforeTrailer();
  if (!reader.atEnd()) throw damaged("bytes follow the END trailer");
  const counts = { records, tokens: tokens.length, cursors: cursors.length, objects: seen.size };
  const told = { records: trailer.records, tokens: trailer.tokens, cursors: trailer.cursors, objects: trailer.objects };
  if (JSON.stringify(told) !== JSON.stringify(counts)) {
    throw damaged(`the trailer counts ${describe(told)}, the file holds ${describe(counts)}`);
  }
  if (trailer.sha256 !== whole) throw damaged("the file's digest does not match its trailer (bytes were changed)");
  meaning.end();
  replaceState(db, tokens, cursors);
  return counts;
}

/** A line's JSON value once its checksum holds. */
function checked(l: string, line: number, what: string): unknown {
  const sum = l.slice(2, 34);
  const json = l.slice(35);
  const name = what === "record" ? recordName(json, line) : `the ${what} on line ${line}`;
  if (l[34] !== " " || recordSum(json) !== sum) throw damaged(`${name} fails its checksum`);
  try {
    return JSON.parse(json);
  } catch {
    throw damaged(`${name} is not JSON`);
  }
}

/** A token or cursor line, its checksum and shape checked. */
function stateLine<S extends z.ZodType>(l: string, line: number, schema: S, what: string): z.output<S> {
  const parsed = schema.safeParse(checked(l, line, what));
  if (!parsed.success) throw damaged(`the ${what} on line ${line} is not one zerodb writes`);
  return parsed.data;
}

/** One object frame: its bytes staged while hashed, placed only when they match the digest. */
async function restoreObject(db: Database, reader: BackupReader, blobs: BlobStore, o: { digest: string; size: number }): Promise<void> {
  const bytes = async function* () {
    yield* reader.bytes(o.size, `object ${o.digest}`);
  };
  const staged = await blobs.stage(bytes(), { maxBytes: Number.MAX_SAFE_INTEGER });
  try {
    if (staged.digest !== o.digest) throw damaged(`object ${o.digest}: its bytes hash to ${staged.digest}`);
    const [nl] = [...reader.bytes(1, `object ${o.digest}`)];
    if (nl?.[0] !== 10) throw damaged(`object ${o.digest}: its frame does not end where its size says`);
    // An increment may carry bytes an earlier file placed: place() never overwrites, and they are the same bytes.
    staged.place();
    db.query("INSERT INTO objects (digest, size, created) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING").run(o.digest, o.size, Date.now());
  } finally {
    staged.discard();
  }
}

/** Tokens and cursors are state as of the file's snapshot: the last file's replace the earlier ones'. */
function replaceState(db: Database, tokens: TokenRecord[], cursors: CursorRecord[]): void {
  db.transaction(() => {
    db.run("DELETE FROM tokens");
    db.run("DELETE FROM capture_cursors");
    const token = db.query("INSERT INTO tokens (digest, id, tenant, created, revoked) VALUES (?, ?, ?, ?, ?)");
    for (const t of tokens) token.run(Buffer.from(t.digest, "hex"), t.id, t.tenant, t.created, t.revoked);
    const cursor = db.query("INSERT INTO capture_cursors (tenant, source, session, path, offset, position, chunk, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    for (const c of cursors) cursor.run(c.tenant, c.source, c.session, c.path, c.offset, c.position, c.chunk, c.updated);
  })();
}

function readTrailer(pending: string | undefined, line: number): BackupTrailer {
  if (pending === undefined) throw damaged("the file ends before its END trailer (truncated)");
  if (!pending.startsWith("END ")) throw damaged(`line ${line}: unexpected ${JSON.stringify(pending.slice(0, 40))}`);
  let json: unknown;
  try {
    json = JSON.parse(pending.slice(4));
  } catch {
    throw damaged("the END trailer is malformed (truncated?)");
  }
  const t = backupSchemas().BackupTrailer.safeParse(json);
  if (!t.success) throw damaged("the END trailer is malformed (truncated?)");
  return t.data;
}

function describe(c: FileCounts): string {
  return `${c.records} records, ${c.tokens} tokens, ${c.cursors} cursors and ${c.objects} objects`;
}

/** A record's name for an error: its LSN when the JSON still parses, else its line. */
function recordName(json: string, line: number): string {
  try {
    const lsn = (JSON.parse(json) as { lsn?: unknown }).lsn;
    if (typeof lsn === "number") return `record lsn ${lsn} (line ${line})`;
  } catch {}
  return `the record on line ${line}`;
}
