/**
 * Which file a cursor was reading (DESIGN.md 7.2, README "Exactly once"):
 * a cursor holds a byte offset, not the file's identity, so a transcript
 * deleted and written again under the same path (or rewritten shorter) must
 * not be read from the old offset as if it went on. A transcript's identity
 * is its head: the SHA-256 of its first line (at most its first 4 KiB), the
 * same bytes once Codex compresses a rollout to `.jsonl.zst` (read
 * decompressed), unlike its inode. The head a source's cursor follows is a
 * fact, `capture/source/<digest of the source key>` = `{source, key, head}`,
 * kept in the tenant's memory (so it works through a remote sink too). When
 * the file's head differs, or the file is shorter than the cursor, the file
 * is a new generation: a source of its own, keyed `<key>~<12 hex>` (derived
 * from the previous generation's key and the new head, so racing runs pick
 * the same one), read from its start with its own idempotency keys. What the
 * earlier generation stored stays; nothing is stored twice.
 *
 * Not checked: a whole-file JSON chat (Gemini rewrites it whole by design;
 * its cursor counts messages) and an opencode session (rows of a database).
 */
import { closeSync, fstatSync, readSync } from "node:fs";
import { isZeroDbError } from "../errors.ts";
import type { CursorRow } from "../store/capture-cursors.ts";
import { BOOKKEEPING_FACTS } from "../store/ranges.ts";
import type { Memory } from "../store/types.ts";
import { sha256Hex } from "../util/hash.ts";
import { isJsonChat, isZstd, openLines, openRegular } from "./lines.ts";
import type { CaptureSink } from "./sink.ts";
import { type Source, idemPrefix } from "./sources.ts";

/** Bytes of a first line that make the head: enough to hold a session's id and start time in every format. */
const HEAD_BYTES = 4096;
const NEWLINE = 0x0a;

/** What the identity fact of a source holds. */
export interface SourceIdentity {
  /** The source key as the harness names it (the first generation's cursor key). */
  source: string;
  /** The cursor key of the generation being read now. */
  key: string;
  /** The head of that generation's file. */
  head: string;
}

/** A transcript's head digest and size (as its cursor counts), or undefined while its first line is unfinished. */
export function transcriptHead(path: string): { head: string; size: number } | undefined {
  if (isZstd(path)) {
    using reader = openLines(path);
    const buf = new Uint8Array(HEAD_BYTES);
    const n = reader.readAt(buf, 0);
    const head = headOf(buf.subarray(0, n));
    return head === undefined ? undefined : { head, size: reader.size };
  }
  const fd = openRegular(path);
  try {
    const buf = new Uint8Array(HEAD_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    // Size after the read: a file growing meanwhile is only larger, and the head is fixed once complete.
    const size = Math.max(fstatSync(fd).size, n);
    const head = headOf(buf.subarray(0, n));
    return head === undefined ? undefined : { head, size };
  } finally {
    closeSync(fd);
  }
}

/** The digest of the first line (newline included), or of the first 4 KiB when the line is longer; undefined when neither is complete. */
function headOf(bytes: Uint8Array): string | undefined {
  const nl = bytes.indexOf(NEWLINE);
  if (nl >= 0) return sha256Hex(bytes.subarray(0, nl + 1)).slice(0, 32);
  return bytes.length >= HEAD_BYTES ? sha256Hex(bytes.subarray(0, HEAD_BYTES)).slice(0, 32) : undefined;
}

/** The fact key holding a source's identity. */
export function identityFactKey(sourceKey: string): string {
  return `${BOOKKEEPING_FACTS}${sha256Hex(sourceKey).slice(0, 32)}`;
}

/** The key of the generation after `previous` whose file has head `head`. */
export function nextGenerationKey(source: string, previous: string, head: string): string {
  return `${source}~${sha256Hex(`${previous}\n${head}`).slice(0, 12)}`;
}

/** The identity fact of a source, or undefined (none yet, or not of this shape). */
export async function readIdentity(memory: Memory, sourceKey: string): Promise<SourceIdentity | undefined> {
  let value: unknown;
  try {
    value = (await memory.factGet({ key: identityFactKey(sourceKey) })).value;
  } catch (err) {
    if (isZeroDbError(err) && err.code === "not_found") return undefined;
    throw err;
  }
  const v = value as Partial<SourceIdentity> | null;
  if (typeof v !== "object" || v === null || v.source !== sourceKey || typeof v.key !== "string" || typeof v.head !== "string") return undefined;
  return { source: v.source, key: v.key, head: v.head };
}

async function writeIdentity(memory: Memory, id: SourceIdentity): Promise<void> {
  // Runs racing on one file write the same value: the idempotency key makes that one write.
  const idem = `capture:identity:${sha256Hex(JSON.stringify(id)).slice(0, 48)}`;
  await memory.factSet({ key: identityFactKey(id.source), value: { ...id }, idem_key: idem });
}

/** A source's generation: the source itself, or one keyed `<key>~<hex>` with its own idempotency keys. */
function generation(source: Source, key: string): Source {
  return key === source.key ? source : { ...source, key, idemPrefix: idemPrefix(key) };
}

/**
 * The source to read now: the generation whose head the file has. The first
 * time a source is seen (or a cursor older than this check), the file's head
 * is recorded as it is. `warn` hears of a file found replaced.
 */
export async function currentGeneration(sink: CaptureSink, source: Source, warn: (w: string) => void): Promise<Source> {
  if (source.open !== undefined || isJsonChat(source.path)) return source;
  let found: ReturnType<typeof transcriptHead>;
  try {
    found = transcriptHead(source.path);
  } catch {
    // Unreadable now: the read that follows says why.
    found = undefined;
  }
  let known = await readIdentity(sink.memory, source.key);
  if (found === undefined) return generation(source, known?.key ?? source.key);
  let why: string | undefined;
  const shorter = async (key: string) => {
    const cursor = await sink.cursor(key);
    return cursor !== undefined && found.size < cursor.offset ? `it is shorter than its cursor (${found.size} < ${cursor.offset} bytes)` : undefined;
  };
  if (known === undefined) {
    // First seen, or a cursor from before this check: its file is taken as it is, unless it cannot be the one read.
    why = await shorter(source.key);
    if (why === undefined) {
      await writeIdentity(sink.memory, { source: source.key, key: source.key, head: found.head });
      return source;
    }
    known = { source: source.key, key: source.key, head: "" };
  } else if (known.head !== found.head) why = "its first line changed";
  else why = await shorter(known.key);
  if (why === undefined) return generation(source, known.key);
  const key = nextGenerationKey(source.key, known.key, found.head);
  await writeIdentity(sink.memory, { source: source.key, key, head: found.head });
  warn(`${source.path} was replaced (${why}): read from its start as ${key}; what was captured of it before stays`);
  return generation(source, key);
}

/**
 * For `capture status`, reading only: the generation of a source read now,
 * and the cursors of its earlier generations (what was captured of the files
 * it replaced), among `cursors`.
 */
export async function generationsOf(memory: Memory, source: Source, cursors: Map<string, CursorRow>): Promise<{ current: Source; earlier: CursorRow[] }> {
  if (source.open !== undefined || isJsonChat(source.path)) return { current: source, earlier: [] };
  const known = await readIdentity(memory, source.key);
  if (known === undefined || known.key === source.key) return { current: source, earlier: [] };
  const earlier = [...cursors.values()].filter((c) => c.source !== known.key && (c.source === source.key || c.source.startsWith(`${source.key}~`)));
  return { current: generation(source, known.key), earlier };
}
