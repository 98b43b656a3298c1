/**
 * Migration 4's step on PostgreSQL, as SQLite's migration 8
 * (src/store/sqlite/migrate-captured.ts): Claude Code turns captured before
 * capture rendered a subagent's progress lines and compaction are rendered
 * again as capture renders their lines now (capture/rerender.ts), in LSN
 * order, in the migration's transaction, a batch of rows per statement. A
 * rewritten row gets its new text, meta, hashes (a replay of its line is a
 * duplicate, I3), class and word index, which the postings follow by their
 * trigger (migration 3); its session's byte count follows.
 */
import type { SQL } from "bun";
import { type RerenderLookups, type Rerendered, rerenderTurn } from "../../capture/rerender.ts";
import { turnClass } from "../../search/search-class.ts";
import { contentHash, opHash } from "../hashes.ts";
import { keyHeld } from "./_tape.ts";
import { wordsOf } from "./words.ts";

/** The rows that may render differently (a wide net; rerenderTurn decides), as on SQLite. */
const CANDIDATES = `SELECT lsn FROM tape
  WHERE kind = 'turn' AND forgotten_by IS NULL AND text IS NOT NULL AND data IS NOT NULL AND idem_key IS NOT NULL AND (
    (starts_with(text, '[progress] {') AND strpos(text, '"agent_progress"') > 0)
    OR (data->'meta'->>'kind' IS NOT NULL AND (
      data->'meta'->'isCompactSummary' = 'true'::jsonb OR starts_with(data->'meta'->>'agent_id', 'acompact-') OR strpos(idem_key, '/agent-acompact-') > 0
      OR (data->'meta'->>'kind' = 'prompt' AND strpos(lower(left(text, 2000)), 'create a detailed summary of the conversation so far') > 0)))
    OR (data->'meta'->'isMeta' = 'true'::jsonb AND data->'meta'->>'noise' = 'bookkeeping' AND strpos(left(text, 64), '<system-reminder>') > 0))
  ORDER BY lsn`;

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

/**
 * Renders the candidate rows again, in `tx` (the migration's transaction),
 * BATCH rows per statement each way; returns how many were rewritten.
 */
export async function rerenderCaptured(tx: SQL, onProgress?: (done: number, total: number) => void): Promise<number> {
  const lsns = ((await tx.unsafe(CANDIDATES)) as { lsn: string }[]).map((r) => r.lsn);
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
    for (const row of rows) {
      const r = await rerenderRow(tx, row, { owned, tools });
      if (r === undefined) continue;
      const json = JSON.stringify({ role: r.role, meta: r.meta });
      // Migration 4 runs before migration 5 encodes NUL (nul.ts), on rows stored as written:
      // a rendering that would hold U+0000 cannot be stored as such, so that row stays as it was.
      if (r.content.includes("\u0000") || json.includes("\\u0000")) continue;
      const update: Updated = {
        lsn: row.lsn,
        text: r.content,
        data: json,
        op: Buffer.from(opHash.turn(row.subject, r.role, r.content, r.meta)).toString("hex"),
        sclass: turnClass(r.role, r.meta),
      };
      if (r.content === row.text) metas.push(update);
      else {
        texts.push(update);
        const key = `${row.tenant}\u0000${row.subject}`;
        const d = deltas.get(key) ?? deltas.set(key, { tenant: row.tenant, name: row.subject, bytes: 0 }).get(key)!;
        d.bytes += Buffer.byteLength(r.content, "utf8") - Buffer.byteLength(row.text, "utf8");
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
      await tx.unsafe(
        `UPDATE tape t SET text = u.text, data = u.data::jsonb, bytes = octet_length(u.text), content_hash = decode(u.ch, 'hex'),
           op_hash = decode(u.op, 'hex'), sclass = u.sclass, words = u.words::tsvector
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[]) AS u(lsn, text, data, ch, op, sclass, words)
         WHERE t.lsn = u.lsn`,
        [
          texts.map((u) => u.lsn),
          texts.map((u) => u.text),
          texts.map((u) => u.data),
          texts.map((u) => Buffer.from(contentHash(u.text)).toString("hex")),
          texts.map((u) => u.op),
          texts.map((u) => u.sclass),
          texts.map((u) => wordsOf(u.text)),
        ],
      );
    }
  }
  for (const d of deltas.values()) await tx`UPDATE sessions SET bytes = bytes + ${d.bytes} WHERE tenant = ${d.tenant} AND name = ${d.name}`;
  if (lsns.length > 0) onProgress?.(lsns.length, lsns.length);
  return rewritten;
}

/** A row's new values, as the batch's update binds them (hashes as hex). */
interface Updated {
  lsn: string;
  text: string;
  data: string;
  op: string;
  sclass: number;
}

/**
 * One row rendered again. rerenderTurn is synchronous: the subagent
 * transcripts it asks about that the store has not answered yet are looked
 * up, and the row is rendered again with the answers (a line names the same
 * agents each time).
 */
async function rerenderRow(tx: SQL, row: Row, seen: { owned: Map<string, boolean>; tools: Map<string, Map<string, string>> }): Promise<Rerendered | undefined> {
  const data = JSON.parse(row.data) as { role: string; meta?: Record<string, unknown> };
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
