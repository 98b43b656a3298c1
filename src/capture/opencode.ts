/**
 * opencode's SQLite store (HARNESSES.md "opencode"): `opencode.db` in its
 * data directory (`$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`;
 * `$OPENCODE_DB` names another; channel builds write `opencode-<channel>.db`),
 * tables `session`, `message` and `part` whose `data` columns hold JSON.
 *
 * Each opencode session is one capture source, keyed `opencode:<session id>`,
 * read as a sequence of records: a message, then each of its parts, and a tool
 * part twice (its call, then its result). A record's place is its id
 * (opencode-ids.ts): its position is the id's place × 4 + a slot (0 message,
 * 1 part or tool call, 2 tool result). The cursor's
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
import { SLOTS, idNumber, idRange, placeTime } from "./opencode-ids.ts";
import { type Source, idemPrefix } from "./sources.ts";

/** An assistant message with no write for this long was abandoned (opencode was killed mid-reply). */
export const ASSISTANT_STALE_MS = 60 * 60 * 1000;
/** A user message's parts are written with it: with no write for this long, it is whole. */
export const USER_SETTLED_MS = 5000;
/** How much earlier than the cursor a part row may have been inserted (ids made before the insert, by a client). */
const INSERT_SLACK_MS = 60 * 60 * 1000;

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

/** The id range of a run that reads the whole window: `msg_` and any hex digits (all below `g`). */
const EVERY_ID = { lo: "", hi: "g" };

/** The records to read, in order, up to the first of a message not yet finished. */
function plan(db: Database, session: { id: string }, offset: number, now: number): Planned[] {
  // Rows inserted before the cursor's time (less a slack for ids made before their insert) cannot be new:
  // a long session is not read whole by every run.
  const since = offset > 0 ? placeTime(Math.floor(offset / SLOTS)) - INSERT_SLACK_MS : 0;
  const range = idRange(offset, now);
  // A part's type says whether a tool result follows; it is read only for the parts that can be new.
  const TYPE = "CASE WHEN json_valid(data) THEN json_extract(data, '$.type') END AS type";
  const heads = (
    range
      ? db
          .query<PartHead, [string, number, string, string]>(
            `SELECT id, message_id, time_created, time_updated, ${TYPE} FROM part
              WHERE id >= 'prt_' || ?3 AND id < 'prt_' || ?4 AND +session_id = ?1 AND time_created >= ?2`,
          )
          .all(session.id, since, range.lo, range.hi)
      : db
          .query<PartHead, [string, number]>(
            `SELECT id, message_id, time_created, time_updated, ${TYPE} FROM part WHERE session_id = ?1 AND time_created >= ?2`,
          )
          .all(session.id, since)
  ).filter((h) => {
    const n = idNumber(h.id, h.time_created);
    return n !== undefined && n * SLOTS + 2 >= offset;
  });
  const ids = range ?? EVERY_ID;
  // The messages that can be new, and the (older) messages of new parts: a reply captured in part when a run stopped.
  const owners = new Set(heads.map((h) => h.message_id));
  const messages = db
    .query<MessageRow, [string, number, string, string, string]>(
      `SELECT id, time_created, time_updated, data FROM message WHERE session_id = ?1 AND time_created >= ?2 AND id >= 'msg_' || ?4 AND id < 'msg_' || ?5
       UNION SELECT id, time_created, time_updated, data FROM message WHERE id IN (SELECT value FROM json_each(?3)) AND session_id = ?1`,
    )
    .all(session.id, since, JSON.stringify([...owners]), ids.lo, ids.hi)
    .filter((m) => {
      if (owners.has(m.id)) return true;
      const n = idNumber(m.id, m.time_created);
      return n !== undefined && n * SLOTS >= offset;
    });
  // When each of them was last written, its parts included (older parts too: a part still streaming keeps it open).
  const written = new Map(
    db
      .query<{ id: string; t: number }, [string]>(
        "SELECT message_id AS id, max(time_updated) AS t FROM part WHERE message_id IN (SELECT value FROM json_each(?1)) GROUP BY message_id",
      )
      .all(JSON.stringify(messages.map((m) => m.id)))
      .map((r) => [r.id, r.t]),
  );
  // Whether a later message, and a later assistant message, exist: the session's last of each, by opencode's order.
  const LAST = "ORDER BY time_created DESC, id DESC LIMIT 1";
  const last = db.query<{ id: string; time_created: number }, [string]>(`SELECT id, time_created FROM message WHERE session_id = ?1 ${LAST}`).get(session.id);
  const lastAssistant = db
    .query<{ id: string; time_created: number }, [string]>(
      `SELECT id, time_created FROM message WHERE session_id = ?1 AND CASE WHEN json_valid(data) THEN json_extract(data, '$.role') END = 'assistant' ${LAST}`,
    )
    .get(session.id);
  const after = (m: MessageRow, x: { id: string; time_created: number } | null) =>
    x !== null && (x.time_created > m.time_created || (x.time_created === m.time_created && x.id > m.id));
  const byMessage = new Map<string, PartHead[]>();
  for (const p of heads) {
    const list = byMessage.get(p.message_id);
    if (list) list.push(p);
    else byMessage.set(p.message_id, [p]);
  }
  const records: (Planned & { done: boolean })[] = [];
  for (const m of messages) {
    const data = parseObject(m.data);
    const done = finished({
      row: m,
      data,
      lastWrite: Math.max(m.time_updated, written.get(m.id) ?? 0),
      later: after(m, last),
      laterAssistant: after(m, lastAssistant),
      now,
    });
    const n = idNumber(m.id, m.time_created);
    if (n !== undefined) records.push({ position: n * SLOTS, message: m, done });
    for (const p of byMessage.get(m.id) ?? []) {
      const pn = idNumber(p.id, p.time_created)!;
      records.push({ position: pn * SLOTS + 1, message: m, part: p, done });
      if (p.type === "tool") records.push({ position: pn * SLOTS + 2, message: m, part: p, result: true, done });
    }
  }
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
function finished(m: { row: MessageRow; data: Record<string, unknown>; lastWrite: number; later: boolean; laterAssistant: boolean; now: number }): boolean {
  const { lastWrite } = m;
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
