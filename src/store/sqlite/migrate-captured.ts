/**
 * The step of migrations 8 and 10 (DESIGN.md 11, "What is captured is what is
 * searched"): turns captured before capture rendered Claude Code's subagent
 * progress lines and compaction (8) and Codex's exec_command_end lines (10)
 * are rendered again as capture renders their lines now
 * (capture/rerender.ts), in LSN order, in the migration's transaction. A
 * rewritten row gets its new text, meta, hashes (so a replay of its line is a
 * duplicate, I3), checksum and class; its old index entries are deleted and
 * its new ones written from the new text, so a later forget, which
 * recomputes the index text from the stored text, purges it whole (I9); its
 * session's byte count follows.
 */
import type { Database } from "bun:sqlite";
import { COMMAND_END_NOTE, type RerenderLookups, rerenderTurn } from "../../capture/rerender.ts";
import { turnClass } from "../../search/search-class.ts";
import { contentHash, idemDigest, opHash } from "../hashes.ts";
import { rowChecksum } from "./_tape.ts";
import { type RebuildProgress, indexRow, unindexRow } from "./search/word-index.ts";

/** Live captured turns. */
const CAPTURED = "kind = 'turn' AND forgotten_by IS NULL AND text IS NOT NULL AND data IS NOT NULL AND idem_key IS NOT NULL";
/** A Codex exec_command_end note, by its text's start. */
const COMMAND_NOTE = `substr(text, 1, ${COMMAND_END_NOTE.length}) = '${COMMAND_END_NOTE}'`;

/**
 * The rows that may render differently: agent_progress notes, compaction
 * turns captured with a kind (those without one are reclassified by
 * migration 8's SQL), and Codex exec_command_end notes. A wide net, cheap in
 * SQL; rerenderTurn decides.
 */
const CANDIDATES = `SELECT lsn FROM tape
  WHERE ${CAPTURED} AND (
    (substr(text, 1, 12) = '[progress] {' AND instr(text, '"agent_progress"') > 0)
    OR (instr(data, '"kind":"') > 0 AND (
      instr(data, '"isCompactSummary":true') > 0 OR instr(data, '"agent_id":"acompact-') > 0 OR instr(idem_key, '/agent-acompact-') > 0
      OR (instr(data, '"kind":"prompt"') > 0 AND substr(text, 1, 2000) LIKE '%create a detailed summary of the conversation so far%')))
    OR (instr(data, '"isMeta":true') > 0 AND instr(data, '"noise":"bookkeeping"') > 0 AND instr(substr(text, 1, 64), '<system-reminder>') > 0)
    OR ${COMMAND_NOTE})
  ORDER BY lsn`;
/** Migration 10's rows: the Codex notes alone (migration 8 rendered the others already, with today's code). */
const COMMAND_CANDIDATES = `SELECT lsn FROM tape WHERE ${CAPTURED} AND ${COMMAND_NOTE} ORDER BY lsn`;

/** Which rows a migration renders again. */
export interface RerenderOptions {
  /** Only Codex's exec_command_end notes (migration 10). */
  commandsOnly?: boolean;
}

/** Rows between two progress reports. */
const REPORT_EVERY = 5000;

interface Row {
  lsn: number;
  tenant: string;
  subject: string;
  idem_key: string;
  text: string;
  data: string;
}

/** Renders the candidate rows again; returns how many were rewritten. */
export function rerenderCaptured(db: Database, onProgress?: RebuildProgress, opts: RerenderOptions = {}): number {
  const lsns = (db.query(opts.commandsOnly ? COMMAND_CANDIDATES : CANDIDATES).all() as { lsn: number }[]).map((r) => r.lsn);
  // A store with records always has its id (identity.ts writes it on the first open), and the checksums need it.
  const storeId = (db.query("SELECT value FROM meta WHERE key = 'store_id'").get() as { value: string } | null)?.value;
  // Nothing to render again: nothing to report either.
  if (lsns.length === 0 || storeId === undefined) return 0;
  const get = db.query("SELECT lsn, tenant, subject, idem_key, text, data FROM tape WHERE lsn = ?");
  const setRow = db.query("UPDATE tape SET text = ?, data = ?, bytes = ?, content_hash = ?, op_hash = ?, checksum = ?, sclass = ? WHERE lsn = ?");
  const setMeta = db.query("UPDATE tape SET data = ?, op_hash = ?, checksum = ?, sclass = ? WHERE lsn = ?");
  const addBytes = db.query("UPDATE sessions SET bytes = bytes + ? WHERE tenant = ? AND name = ?");
  const owned = new Map<string, boolean>();
  /** Tool names of the subagent tool calls rendered so far, per tenant and capture session. */
  const tools = new Map<string, Map<string, string>>();
  let reindexed = false;
  let rewritten = 0;
  for (const [i, lsn] of lsns.entries()) {
    if (onProgress && i > 0 && i % REPORT_EVERY === 0) onProgress(i, lsns.length);
    const row = get.get(lsn) as Row | null;
    if (row === null) continue;
    const data = JSON.parse(row.data) as { role: string; meta?: Record<string, unknown> };
    if (data.meta === undefined) continue;
    const scope = `${row.tenant}\u0000${row.subject}`;
    let names = tools.get(scope);
    if (names === undefined) tools.set(scope, (names = new Map()));
    const lookups: RerenderLookups = {
      ownFile: (harnessId, agentId) => {
        const key = `${row.tenant}\u0000${harnessId}\u0000${agentId}`;
        let held = owned.get(key);
        if (held === undefined) owned.set(key, (held = holdsSource(db, row.tenant, `${harnessId}/agent-${agentId}.jsonl`)));
        return held;
      },
      toolName: (id) => names.get(id),
    };
    const r = rerenderTurn({ role: data.role, content: row.text, meta: data.meta, idemKey: row.idem_key }, lookups);
    if (r === undefined) continue;
    for (const u of r.uses) names.set(u.id, u.name);
    const json = JSON.stringify({ role: r.role, meta: r.meta });
    const op = opHash.turn(row.subject, r.role, r.content, r.meta);
    const checksum = rowChecksum(storeId, { subject: row.subject, text: r.content, data: json });
    const sclass = turnClass(r.role, r.meta);
    if (r.content === row.text) {
      setMeta.run(json, op, checksum, sclass, lsn);
    } else {
      unindexRow(db, { lsn, tenant: row.tenant, text: row.text });
      reindexed = true;
      const bytes = Buffer.byteLength(r.content, "utf8");
      setRow.run(r.content, json, bytes, contentHash(r.content), op, checksum, sclass, lsn);
      indexRow(db, { lsn, tenant: row.tenant, text: r.content });
      addBytes.run(bytes - Buffer.byteLength(row.text, "utf8"), row.tenant, row.subject);
    }
    rewritten++;
  }
  // I9: the old texts' entries leave the index's pages now, not at some later merge: the whole index is merged
  // into one segment, which drops every deleted entry (https://sqlite.org/fts5.html#the_optimize_command).
  // Deleting each row with secure-delete on would do it too, but rewrites the entries of each of its words
  // (every row holds the common ones): about 200 rows a second against 4,000 this way on 125,000 turns.
  if (reindexed) db.run("INSERT INTO words (words) VALUES ('optimize')");
  onProgress?.(lsns.length, lsns.length);
  return rewritten;
}

/**
 * Whether the tenant holds what capture read from a source (a subagent's own
 * transcript): its first entry's key, live or forgotten (a digest, I3), or a
 * cursor of the source or of a later generation of it (`<key>~<hex>`).
 */
function holdsSource(db: Database, tenant: string, source: string): boolean {
  const first = `${source}:0:0`;
  if (db.query("SELECT 1 FROM tape WHERE tenant = ? AND idem_key = ?").get(tenant, first) !== null) return true;
  if (db.query("SELECT 1 FROM tape WHERE tenant = ? AND idem_digest = ?").get(tenant, idemDigest(tenant, first)) !== null) return true;
  if (db.query("SELECT 1 FROM capture_cursors WHERE tenant = ? AND source = ?").get(tenant, source) !== null) return true;
  // A later generation's key is `<key>~<hex>`: a range of the primary key, from `<key>~` to before `<key>` and U+007F.
  return db.query("SELECT 1 FROM capture_cursors WHERE tenant = ? AND source > ? AND source < ? LIMIT 1").get(tenant, `${source}~`, `${source}\u007f`) !== null;
}
