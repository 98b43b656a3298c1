/**
 * The step of migrations 4 and 7 on PostgreSQL, as SQLite's migrations 8 and
 * 10 (src/store/sqlite/migrate-captured.ts): turns captured before capture
 * rendered Claude Code's subagent progress lines and compaction (4) and
 * Codex's exec_command_end lines (7) are rendered again as capture renders
 * their lines now (capture/rerender.ts), in LSN order, in the migration's
 * transaction, a batch of rows per statement. A rewritten row gets its new
 * text, meta, hashes (a replay of its line is a duplicate, I3), class and
 * word index, which the postings follow by their trigger (migration 3); its
 * session's byte count follows.
 */
import type { SQL } from "bun";
import { COMMAND_END_NOTE, type RerenderLookups, type Rerendered, rerenderTurn } from "../../capture/rerender.ts";
import { turnClass } from "../../search/search-class.ts";
import { contentHash, opHash } from "../hashes.ts";
import { keyHeld } from "./_tape.ts";
import { decodeJson, decodeText, encodeJson, encodeText } from "./nul.ts";
import { wordsOf } from "./words.ts";

/** Live captured turns. */
const CAPTURED = "kind = 'turn' AND forgotten_by IS NULL AND text IS NOT NULL AND data IS NOT NULL AND idem_key IS NOT NULL";
/** A Codex exec_command_end note, by its text's start (which NUL encoding leaves as it is). */
const COMMAND_NOTE = `starts_with(text, '${COMMAND_END_NOTE}')`;

/** The rows that may render differently (a wide net; rerenderTurn decides), as on SQLite. */
const CANDIDATES = `SELECT lsn FROM tape
  WHERE ${CAPTURED} AND (
    (starts_with(text, '[progress] {') AND strpos(text, '"agent_progress"') > 0)
    OR (data->'meta'->>'kind' IS NOT NULL AND (
      data->'meta'->'isCompactSummary' = 'true'::jsonb OR starts_with(data->'meta'->>'agent_id', 'acompact-') OR strpos(idem_key, '/agent-acompact-') > 0
      OR (data->'meta'->>'kind' = 'prompt' AND strpos(lower(left(text, 2000)), 'create a detailed summary of the conversation so far') > 0)))
    OR (data->'meta'->'isMeta' = 'true'::jsonb AND data->'meta'->>'noise' = 'bookkeeping' AND strpos(left(text, 64), '<system-reminder>') > 0)
    OR ${COMMAND_NOTE})
  ORDER BY lsn`;
/** Migration 7's rows: the Codex notes alone (migration 4 rendered the others already, with today's code). */
const COMMAND_CANDIDATES = `SELECT lsn FROM tape WHERE ${CAPTURED} AND ${COMMAND_NOTE} ORDER BY lsn`;

/** Rows read, rendered and written per round trip. */
const BATCH = 256;

interface Row {
  lsn: string;
  tenant: string;
  subject: string;
  idem_key: string;
  text: string;
  data: string;
}

/** Where in the migrations the step runs. */
export interface RerenderOptions {
  /** After migration 5: text and data are stored NUL-encoded (nul.ts), and are decoded to render and encoded to write. */
  encoded?: boolean;
  /** Only Codex's exec_command_end notes (migration 7). */
  commandsOnly?: boolean;
}

/**
 * Renders the candidate rows again, in `tx` (the migration's transaction),
 * BATCH rows per statement each way; returns how many were rewritten.
 */
export async function rerenderCaptured(tx: SQL, onProgress?: (done: number, total: number) => void, opts: RerenderOptions = {}): Promise<number> {
  const encoded = opts.encoded === true;
  const lsns = ((await tx.unsafe(opts.commandsOnly ? COMMAND_CANDIDATES : CANDIDATES)) as { lsn: string }[]).map((r) => r.lsn);
  const owned = new Map<string, boolean>();
  /** Tool names of the subagent tool calls rendered so far, per tenant and capture session. */
  const tools = new Map<string, Map<string, string>>();
  /** Bytes each session's rows gained (or lost), applied once at the end. */
  const deltas = new Map<string, { tenant: string; name: string; bytes: number }>();
  let rewritten = 0;
  for (let at = 0; at < lsns.length; at += BATCH) {
    if (onProgress && at > 0) onProgress(at, lsns.length);
    const rows = (await tx.unsafe("SELECT lsn, tenant, subject, idem_key, text, data::text AS data FROM tape WHERE lsn = ANY($1::bigint[]) ORDER BY lsn", [
      lsns.slice(at, at + BATCH),
    ])) as Row[];
    const texts: Updated[] = [];
    const metas: Updated[] = [];
    for (const stored of rows) {
      const row = encoded
        ? { ...stored, text: decodeText(stored.text), data: decodeJson(JSON.parse(stored.data) as unknown) }
        : { ...stored, data: JSON.parse(stored.data) as unknown };
      const r = await rerenderRow(tx, row, { owned, tools });
      if (r === undefined) continue;
      const json = JSON.stringify({ role: r.role, meta: r.meta });
      // Migration 4 runs before migration 5 encodes NUL (nul.ts), on rows stored as written:
      // a rendering that would hold U+0000 cannot be stored as such, so that row stays as it was.
      if (!encoded && (r.content.includes("\u0000") || json.includes("\\u0000"))) continue;
      const bytes = Buffer.byteLength(r.content, "utf8");
      const update: Updated = {
        lsn: row.lsn,
        text: encoded ? encodeText(r.content) : r.content,
        data: encoded ? encodeJson(json) : json,
        bytes,
        content: r.content,
        op: Buffer.from(opHash.turn(row.subject, r.role, r.content, r.meta)).toString("hex"),
        sclass: turnClass(r.role, r.meta),
      };
      if (r.content === row.text) metas.push(update);
      else {
        texts.push(update);
        const key = `${row.tenant}\u0000${row.subject}`;
        const d = deltas.get(key) ?? deltas.set(key, { tenant: row.tenant, name: row.subject, bytes: 0 }).get(key)!;
        d.bytes += bytes - Buffer.byteLength(row.text, "utf8");
      }
      rewritten++;
    }
    if (metas.length > 0) {
      await tx.unsafe(
        `UPDATE tape t SET data = u.data::jsonb, op_hash = decode(u.op, 'hex'), sclass = u.sclass
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[]) AS u(lsn, data, op, sclass) WHERE t.lsn = u.lsn`,
        [metas.map((u) => u.lsn), metas.map((u) => u.data), metas.map((u) => u.op), metas.map((u) => u.sclass)],
      );
    }
    if (texts.length > 0) {
      // The postings follow the new words by their trigger (migration 3).
      // Bytes, hashes and words are the text's as written, not as stored (nul.ts), as an append makes them.
      await tx.unsafe(
        `UPDATE tape t SET text = u.text, data = u.data::jsonb, bytes = u.bytes, content_hash = decode(u.ch, 'hex'),
           op_hash = decode(u.op, 'hex'), sclass = u.sclass, words = u.words::tsvector
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::int[], $8::text[])
           AS u(lsn, text, data, bytes, ch, op, sclass, words)
         WHERE t.lsn = u.lsn`,
        [
          texts.map((u) => u.lsn),
          texts.map((u) => u.text),
          texts.map((u) => u.data),
          texts.map((u) => u.bytes),
          texts.map((u) => Buffer.from(contentHash(u.content)).toString("hex")),
          texts.map((u) => u.op),
          texts.map((u) => u.sclass),
          texts.map((u) => wordsOf(u.content)),
        ],
      );
    }
  }
  for (const d of deltas.values()) await tx`UPDATE sessions SET bytes = bytes + ${d.bytes} WHERE tenant = ${d.tenant} AND name = ${d.name}`;
  if (lsns.length > 0) onProgress?.(lsns.length, lsns.length);
  return rewritten;
}

/** A row's new values, as the batch's update binds them (text and data as stored, hashes as hex). */
interface Updated {
  lsn: string;
  text: string;
  data: string;
  /** The text as written, and its bytes. */
  content: string;
  bytes: number;
  op: string;
  sclass: number;
}

/** A candidate row with its text and data as written. */
interface Decoded extends Omit<Row, "data"> {
  data: unknown;
}

/**
 * One row rendered again. rerenderTurn is synchronous: the subagent
 * transcripts it asks about that the store has not answered yet are looked
 * up, and the row is rendered again with the answers (a line names the same
 * agents each time).
 */
async function rerenderRow(
  tx: SQL,
  row: Decoded,
  seen: { owned: Map<string, boolean>; tools: Map<string, Map<string, string>> },
): Promise<Rerendered | undefined> {
  const data = row.data as { role: string; meta?: Record<string, unknown> };
  if (data.meta === undefined) return undefined;
  const scope = `${row.tenant}\u0000${row.subject}`;
  let names = seen.tools.get(scope);
  if (names === undefined) seen.tools.set(scope, (names = new Map()));
  for (;;) {
    const missing: string[] = [];
    const lookups: RerenderLookups = {
      ownFile: (harnessId, agentId) => {
        const source = `${harnessId}/agent-${agentId}.jsonl`;
        const held = seen.owned.get(`${row.tenant}\u0000${source}`);
        if (held === undefined) missing.push(source);
        return held ?? false;
      },
      toolName: (id) => names.get(id),
    };
    const r = rerenderTurn({ role: data.role, content: row.text, meta: data.meta, idemKey: row.idem_key }, lookups);
    if (missing.length === 0) {
      for (const u of r?.uses ?? []) names.set(u.id, u.name);
      return r;
    }
    for (const source of missing) seen.owned.set(`${row.tenant}\u0000${source}`, await holdsSource(tx, row.tenant, source));
  }
}

/**
 * Whether the tenant holds what capture read from a source (a subagent's own
 * transcript): its first entry's key, live or forgotten, or a cursor of it or
 * of a later generation (`<key>~<hex>`), as on SQLite.
 */
async function holdsSource(tx: SQL, tenant: string, source: string): Promise<boolean> {
  if (await keyHeld(tx, tenant, `${source}:0:0`)) return true;
  const cursors = await tx`SELECT 1 FROM capture_cursors WHERE tenant = ${tenant} AND (source = ${source} OR starts_with(source, ${`${source}~`})) LIMIT 1`;
  return cursors.length > 0;
}
