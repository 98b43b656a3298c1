/**
 * Keeping the word index in step with the tape (DESIGN.md D4, 11): a row's
 * index text is written in the transaction that writes the row, removed in
 * the one that forgets it, and rebuilt whole by the migration that created
 * the index.
 */
import type { Database } from "bun:sqlite";
import { SearchClass, isZerodbTool, turnClass } from "../../../search/search-class.ts";
import { indexText } from "../../../search/text.ts";
import { sha256Hex } from "../../../util/hash.ts";

/** A row of the word index: its LSN, its tenant and its text. */
export interface IndexedRow {
  lsn: number;
  tenant: string;
  text: string;
}

const tokens = new Map<string, string>();

/**
 * The token that stands for a tenant in the word index's `tenant` column
 * (migration 007): letters and hex digits only, so the tokenizer keeps it
 * whole, and long enough that no one types it by chance. A search of a
 * store holding several tenants' rows is scoped by it (candidates.ts),
 * so every list and count it reads is the caller's tenant's alone (I5).
 */
export function tenantToken(tenant: string): string {
  let t = tokens.get(tenant);
  if (t === undefined) {
    t = `zdbtenant${sha256Hex(tenant).slice(0, 24)}`;
    if (tokens.size > 1024) tokens.clear();
    tokens.set(tenant, t);
  }
  return t;
}

/** Adds a row's text to the word index; `index` is indexText(text) when the caller computed it already. */
export function indexRow(db: Database, row: IndexedRow, index: string = indexText(row.text)): void {
  db.query("INSERT INTO words (rowid, body, tenant) VALUES (?, ?, ?)").run(row.lsn, index, tenantToken(row.tenant));
}

/** Rows one INSERT of indexRows writes at most. */
const INDEX_ROWS_PER_INSERT = 64;

/**
 * Adds rows' text to the word index, INDEX_ROWS_PER_INSERT rows to a
 * statement; a row's `index` is its indexText(text) when the caller computed
 * it already.
 */
export function indexRows(db: Database, rows: (IndexedRow & { index?: string })[]): void {
  for (let i = 0; i < rows.length; i += INDEX_ROWS_PER_INSERT) {
    const part = rows.slice(i, i + INDEX_ROWS_PER_INSERT);
    const args: (string | number)[] = [];
    for (const r of part) args.push(r.lsn, r.index ?? indexText(r.text), tenantToken(r.tenant));
    db.query((indexSqls[part.length] ??= `INSERT INTO words (rowid, body, tenant) VALUES ${Array(part.length).fill("(?, ?, ?)").join(", ")}`)).run(...args);
  }
}

const indexSqls: string[] = [];

/** Removes a row from the word index: FTS5 needs the very tokens it indexed, so the index text is recomputed. */
export function unindexRow(db: Database, row: IndexedRow): void {
  db.query("INSERT INTO words (words, rowid, body, tenant) VALUES ('delete', ?, ?, ?)").run(row.lsn, indexText(row.text), tenantToken(row.tenant));
}

/** Turns the word index's secure deletes on or off (https://sqlite.org/fts5.html#the_secure_delete_configuration_option). */
export function secureDeletes(db: Database, on: boolean): void {
  db.run(`INSERT INTO words (words, rank) VALUES ('secure-delete', ${on ? 1 : 0})`);
}

/** The search class of a record that is not a turn (a turn's comes from its role and meta: turnClass). */
export function kindClass(kind: string): SearchClass {
  return kind === "link" ? SearchClass.link : SearchClass.note;
}

/** Progress of a rebuild: rows done of rows in all. */
export type RebuildProgress = (done: number, total: number) => void;

/**
 * Indexes every live row with text and sets every row's class, in LSN order.
 * A captured tool result whose call was one of zerodb's own tools (known by
 * the tool_use id the call's meta lists) is noise, so a rebuilt store never
 * finds its own earlier search results.
 */
export function rebuildIndex(db: Database, onProgress?: RebuildProgress): number {
  const total = (db.query("SELECT count(*) AS n FROM tape WHERE text IS NOT NULL AND forgotten_by IS NULL").get() as { n: number }).n;
  const rows = db
    .query("SELECT lsn, tenant, kind, text, data FROM tape WHERE text IS NOT NULL AND forgotten_by IS NULL ORDER BY lsn")
    .iterate() as IterableIterator<{
    lsn: number;
    tenant: string;
    kind: string;
    text: string;
    data: string | null;
  }>;
  const insert = db.query("INSERT INTO words (rowid, body, tenant) VALUES (?, ?, ?)");
  const setClass = db.query("UPDATE tape SET sclass = ? WHERE lsn = ?");
  const zerodbCalls = new Set<string>();
  let done = 0;
  for (const r of rows) {
    insert.run(r.lsn, indexText(r.text), tenantToken(r.tenant));
    const cls = r.kind === "turn" && r.data !== null ? legacyTurnClass(r.tenant, JSON.parse(r.data), zerodbCalls) : kindClass(r.kind);
    if (cls !== SearchClass.note) setClass.run(cls, r.lsn);
    done++;
    if (onProgress && done % 5000 === 0) onProgress(done, total);
  }
  onProgress?.(done, total);
  return done;
}

/**
 * A turn's class as a new write would get it, except that the captured result
 * of one of zerodb's own tool calls is noise (calls precede their results on
 * the tape, so the ids of zerodb's calls are known by then).
 */
function legacyTurnClass(tenant: string, d: { role: string; meta?: Record<string, unknown> }, zerodbCalls: Set<string>): SearchClass {
  const cls = turnClass(d.role, d.meta);
  const meta = d.meta;
  const ids = Array.isArray(meta?.tool_use_ids) ? meta.tool_use_ids.filter((x): x is string => typeof x === "string") : [];
  if (ids.length === 0) return cls;
  const tools = Array.isArray(meta?.tools) ? meta.tools : [];
  if (tools.some(isZerodbTool)) {
    for (const id of ids) zerodbCalls.add(`${tenant}\u0000${id}`);
    return SearchClass.noise;
  }
  return ids.some((id) => zerodbCalls.has(`${tenant}\u0000${id}`)) ? SearchClass.noise : cls;
}
