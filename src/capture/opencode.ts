/**
 * opencode's SQLite store (HARNESSES.md "opencode"): `opencode.db` in its
 * data directory (`$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`;
 * `$OPENCODE_DB` names another; channel builds write `opencode-<channel>.db`),
 * tables `session`, `message` and `part` whose `data` columns hold JSON.
 *
 * Each opencode session is one capture source, keyed `opencode:<session id>`,
 * read as a sequence of records: a message, then each of its parts, and a tool
 * part twice (its call, then its result). A record's place is its id: opencode
 * ids are `<prefix>_<12 hex>` + random, the hex being
 * (milliseconds × 4096 + a counter) cut to 48 bits, so they sort by creation
 * except where the 48 bits wrap (every 795 days). The wrap is undone with the
 * row's `time_created`, and a record's position is that number (from 2024 on)
 * × 4 + a slot (0 message, 1 part or tool call, 2 tool result). The cursor's
 * offset and position are that position: rows opencode deletes (a revert)
 * shift nothing, and a later record always lands after the cursor.
 *
 * When a record is final: parts are updated in place while a reply streams,
 * so only finished messages are read, and reading stops at the first record
 * of an unfinished one. An assistant message is finished once it has
 * `time.completed` (opencode sets it on success, error and abort), or a later
 * assistant message exists (it was abandoned), or nothing of it was written
 * for an hour (opencode died mid-reply); a user message once a later message
 * exists, or nothing of it was written for five seconds. What is read of a
 * record is what does not change after that (compaction marking a tool
 * output as pruned, or a user message's diff summary, are left out), so a
 * record read twice is the same entry (I3).
 *
 * Read-only and brief: the database is opened `readonly` (never a write lock;
 * in WAL mode readers never wait for opencode's writer), each query is its
 * own short read transaction, and a busy database (a checkpoint or recovery)
 * fails the run with a warning and is read on a later run.
 */
import type { Database } from "bun:sqlite";
import { type SessionRow, openDatabase, withDatabase } from "./opencode-db.ts";
import type { LineReader } from "./lines.ts";
import { type Source, idemPrefix } from "./sources.ts";

/** How a record's 12 hex digits sit in an opencode id. */
const ID = /^(ses|msg|prt)_([0-9a-f]{12})/;
/** 2^48: where opencode's id numbers wrap. */
const WRAP = 2 ** 48;
/** Id units (ms × 4096) at 2024-01-01, subtracted so positions stay below 2^53. */
const EPOCH_UNITS = Date.UTC(2024, 0, 1) * 4096;
const SLOTS = 4;
/** An assistant message with no write for this long was abandoned (opencode was killed mid-reply). */
export const ASSISTANT_STALE_MS = 60 * 60 * 1000;
/** A user message's parts are written with it: with no write for this long, it is whole. */
export const USER_SETTLED_MS = 5000;
/** How much earlier than the cursor a part row may have been inserted (ids made before the insert, by a client). */
const INSERT_SLACK_MS = 60 * 60 * 1000;

/** The place of an opencode id created at `timeCreated` (ms), or undefined for an id not of opencode's ascending form. */
export function idNumber(id: string, timeCreated: number): number | undefined {
  const m = ID.exec(id);
  if (!m) return undefined;
  const low = Number.parseInt(m[2]!, 16);
  // The 48 bits wrapped k times: take the k that puts the id's time nearest the row's.
  const k = Math.round((timeCreated * 4096 - low) / WRAP);
  const units = low + k * WRAP - EPOCH_UNITS;
  return units >= 0 ? units : undefined;
}

/** The milliseconds an id place stands for (inverse of idNumber, to within the counter). */
function placeTime(units: number): number {
  return Math.floor((units + EPOCH_UNITS) / 4096);
}

/** The capture source of one opencode session; `agentId` marks a subagent's session. */
export function opencodeSource(dbPath: string, session: SessionRow): Source {
  const key = `opencode:${session.id}`;
  return {
    format: "opencode",
    key,
    idemPrefix: idemPrefix(key),
    path: dbPath,
    open: (offset) => sessionRecords(dbPath, session, offset),
    opencode: { db: dbPath, session },
    ...(session.parentId !== null ? { agentId: session.id } : {}),
  };
}

interface MessageRow {
  id: string;
  time_created: number;
  time_updated: number;
  data: string;
}
interface PartHead {
  id: string;
  message_id: string;
  time_created: number;
  time_updated: number;
  type: string | null;
}
/** One record to read: where it sits, and how to make its line. */
interface Planned {
  position: number;
  message: MessageRow;
  part?: PartHead;
  result?: true;
}

/**
 * The finished records of a session from position `offset` on, as lines
 * (each line's start is its position, its end the next position). The
 * database stays open until the reader is disposed; each part's data is read
 * as its line is pulled, so a run that stops early reads no more.
 */
export function sessionRecords(dbPath: string, session: SessionRow, offset: number, now = Date.now()): LineReader {
  const db = openDatabase(dbPath);
  try {
    const planned = plan(db, session, offset, now);
    const partData = db.query<{ data: string }, [string]>("SELECT data FROM part WHERE id = ?");
    const encoder = new TextEncoder();
    const last = planned.at(-1);
    let closed = false;
    return {
      size: Math.max(offset, last ? last.position + 1 : 0),
      *lines(from: number) {
        for (const p of planned) {
          if (p.position < from) continue;
          let part: unknown;
          if (p.part) {
            const row = partData.get(p.part.id);
            // Gone since it was planned (opencode reverted it): an empty line, which stores nothing.
            if (row === null) {
              yield { start: p.position, end: p.position + 1, position: p.position, bytes: new Uint8Array(0) };
              continue;
            }
            part = { id: p.part.id, ...readPart(parseObject(row.data), p.result === true) };
          }
          const record = {
            record: p.part === undefined ? "message" : p.result ? "tool_result" : "part",
            session: { id: session.id, ...(session.parentId !== null ? { parent: session.parentId } : {}) },
            message: { id: p.message.id, ...parseObject(p.message.data) },
            ...(part !== undefined ? { part } : {}),
          };
          yield { start: p.position, end: p.position + 1, position: p.position, bytes: encoder.encode(JSON.stringify(record)) };
        }
      },
      readAt: () => 0,
      [Symbol.dispose]() {
        if (closed) return;
        closed = true;
        db.close();
      },
    };
  } catch (err) {
    db.close();
    throw withCode(err);
  }
}

/** The records to read, in order, up to the first of a message not yet finished. */
function plan(db: Database, session: { id: string }, offset: number, now: number): Planned[] {
  // Rows inserted before the cursor's time (less a slack for ids made before their insert) cannot be new:
  // a long session is not read whole by every run.
  const since = offset > 0 ? placeTime(Math.floor(offset / SLOTS)) - INSERT_SLACK_MS : 0;
  const heads = db
    .query<Omit<PartHead, "type">, [string, number]>("SELECT id, message_id, time_created, time_updated FROM part WHERE session_id = ? AND time_created >= ?")
    .all(session.id, since);
  // Older messages still matter when parts of theirs are new (a reply captured in part when a run stopped).
  const messages = db
    .query<MessageRow, [string, number, string]>(
      `SELECT id, time_created, time_updated, data FROM message WHERE session_id = ?1 AND
        (time_created >= ?2 OR id IN (SELECT value FROM json_each(?3))) ORDER BY time_created, id`,
    )
    .all(session.id, since, JSON.stringify([...new Set(heads.map((h) => h.message_id))]));
  // A part's type only for the parts not yet read (it says whether a tool result follows): parsing every part's JSON would cost a long session dear.
  const unread = heads.filter((h) => {
    const n = idNumber(h.id, h.time_created);
    return n !== undefined && n * SLOTS + 2 >= offset;
  });
  const typeOf = db.query<{ type: string | null }, [string]>(
    "SELECT CASE WHEN json_valid(data) THEN json_extract(data, '$.type') END AS type FROM part WHERE id = ?",
  );
  const types = new Map(unread.map((h) => [h.id, typeOf.get(h.id)?.type ?? null]));
  const parts: PartHead[] = heads.map((h) => ({ ...h, type: types.get(h.id) ?? null }));
  const byMessage = new Map<string, PartHead[]>();
  for (const p of parts) {
    const list = byMessage.get(p.message_id);
    if (list) list.push(p);
    else byMessage.set(p.message_id, [p]);
  }
  const records: (Planned & { done: boolean })[] = [];
  const data = messages.map((m) => parseObject(m.data));
  // Whether any later message exists, and whether a later assistant message does, for each message.
  const laterAssistant: boolean[] = [];
  for (let i = messages.length - 1, seen = false; i >= 0; i--) {
    laterAssistant[i] = seen;
    if (data[i]!.role === "assistant") seen = true;
  }
  messages.forEach((m, i) => {
    const own = byMessage.get(m.id) ?? [];
    const done = finished({ row: m, data: data[i]!, parts: own, later: i < messages.length - 1, laterAssistant: laterAssistant[i]!, now });
    const n = idNumber(m.id, m.time_created);
    if (n !== undefined) records.push({ position: n * SLOTS, message: m, done });
    for (const p of own) {
      const pn = idNumber(p.id, p.time_created);
      if (pn === undefined) continue;
      records.push({ position: pn * SLOTS + 1, message: m, part: p, done });
      if (p.type === "tool") records.push({ position: pn * SLOTS + 2, message: m, part: p, result: true, done });
    }
  });
  records.sort((a, b) => a.position - b.position);
  const out: Planned[] = [];
  for (const r of records) {
    if (r.position < offset) continue;
    if (!r.done) break;
    out.push(
      r.result
        ? { position: r.position, message: r.message, part: r.part!, result: true }
        : { position: r.position, message: r.message, ...(r.part ? { part: r.part } : {}) },
    );
  }
  return out;
}

/** True when a message will not change any more (see the file's comment). */
function finished(m: { row: MessageRow; data: Record<string, unknown>; parts: PartHead[]; later: boolean; laterAssistant: boolean; now: number }): boolean {
  let lastWrite = m.row.time_updated;
  for (const p of m.parts) lastWrite = Math.max(lastWrite, p.time_updated);
  if (m.data.role === "assistant") {
    const time = m.data.time as { completed?: unknown } | undefined;
    if (typeof time?.completed === "number") return true;
    return m.laterAssistant || m.now - lastWrite > ASSISTANT_STALE_MS;
  }
  return m.later || m.now - lastWrite > USER_SETTLED_MS;
}

/**
 * What a tool part's record needs: opencode keeps a tool's output twice (its
 * `state.output` and `state.metadata.output`), and the call shows only the
 * input. The copy and, for the call, the output are left out, so a 100 MiB
 * output is carried once, by its result's record (render-opencode.ts reads
 * neither `state.metadata` nor a call's output).
 */
function readPart(part: Record<string, unknown>, result: boolean): Record<string, unknown> {
  const state = part.type === "tool" ? part.state : undefined;
  if (typeof state !== "object" || state === null || Array.isArray(state)) return part;
  const { metadata: _copy, ...kept } = state as Record<string, unknown>;
  if (!result) {
    delete kept.output;
    delete kept.error;
    delete kept.attachments;
  }
  return { ...part, state: kept };
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { unparsable: text.slice(0, 1000) };
  }
}

/** An SQLite error with its code where callers look for one (`SQLITE_BUSY`, `SQLITE_CANTOPEN`, ...). */
function withCode(err: unknown): unknown {
  if (typeof err === "object" && err !== null && "code" in err) return err;
  return Object.assign(err instanceof Error ? err : new Error(String(err)), { code: "SQLITE_ERROR" });
}

/** How many finished records of a session lie before `offset` and from it on (for `capture status`); no part's data is read. */
export function recordCounts(dbPath: string, sessionId: string, offset: number): { captured: number; behind: number } {
  return withDatabase(dbPath, (db) => {
    const all = plan(db, { id: sessionId }, 0, Date.now());
    const behind = all.filter((r) => r.position >= offset).length;
    return { captured: all.length - behind, behind };
  });
}
