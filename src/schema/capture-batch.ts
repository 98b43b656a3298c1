/**
 * The capture batch as a Store takes it (DESIGN.md 7.2): checked by the
 * engine before its transaction, so a bad batch is refused naming the field
 * and writes nothing (I6), whichever engine keeps the cursors.
 */
import { once } from "../util/once.ts";
import type { z } from "zod";
import { CONTENT_MAX_BYTES, IDEM_KEY_MAX_BYTES, JSON_MAX_DEPTH, META_MAX_BYTES } from "../limits.ts";
import { ROLES, nameProblem, utf8Bytes } from "./names.ts";
import { parseInput } from "./parse.ts";
import { zod } from "./zod.ts";

/**
 * The schema of a batch of one source's entries, each with the cursor before
 * it, and the cursor after all of them. Built on first use: a batch that is
 * plainly good (checkCaptureBatch) never needs it, and a hook that only
 * captures would otherwise build it at start.
 */
export const captureBatchSchema = once((): z.ZodType => {
  const s = zod();
  // Required here, not imported: common.ts and entry.ts build their schemas as they load, which a hook whose
  // batches are plainly good never needs (issue 32: a tenth of a 64-entry run's own work).
  const { IdemKey, Name, refuseNul } = require("./common.ts") as typeof import("./common.ts");
  const { Entry } = require("./entry.ts") as typeof import("./entry.ts");
  /** A place in a transcript: byte offset and index of the next line, and its next chunk. */
  const Cursor = s.strictObject({
    offset: s.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    position: s.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    chunk: s.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  });
  return s.object({
    source: s.string().min(1).max(4096).superRefine(refuseNul),
    session: Name,
    path: s.string().max(4096).superRefine(refuseNul),
    start: Cursor,
    end: Cursor,
    // No upper bound here: a batch is bounded by the capture run (DESIGN.md 7.2), each entry by the turn limits.
    entries: s.array(s.strictObject({ entry: Entry.extend({ idem_key: IdemKey }), before: Cursor })),
  });
});

/**
 * Refuses a bad batch as `parseInput(captureBatchSchema(), batch)` does: the
 * same typed error naming the field, since that is what reports it. A batch
 * that is plainly good (every rule of the schema checked here by hand, and
 * nothing the schema would have to judge) passes without running zod, whose
 * generic code, cold in each hook process, costs more than reading,
 * rendering and redacting the batch did.
 */
export function checkCaptureBatch(batch: unknown): void {
  if (typeof batch === "object" && batch !== null && vouched.has(batch)) return;
  if (!plainlyGoodBatch(batch)) parseInput(captureBatchSchema(), batch);
}

/** Batches found plainly good where they were read (vouchBatch); held weakly, by identity. */
const vouched = new WeakSet<object>();

/**
 * Marks a batch as found plainly good where it was read: capture sync's
 * read-ahead worker runs plainlyGoodBatch on each batch it reads, and the
 * thread that commits, receiving the batch from it, vouches for it here
 * instead of checking every entry again (issue 32: 465 of 6,889 ms of that
 * thread in a 32 MiB backfill). Only this process's own code can vouch;
 * a batch is vouched for as received, and nothing changes it before its
 * commit (src/capture/run.ts).
 */
export function vouchBatch(batch: object): void {
  vouched.add(batch);
}

// Why a hand-written twin of captureBatchSchema and not one generated from
// it (issue 31): the schema's rules live in refinements (nameProblem,
// refuseNul, the meta's JSON checks in Entry), closures zod cannot lay open,
// so a generator would restate them anyway; and running zod at all, cold in
// each hook process, is the cost the twin avoids. It only ever says "plainly
// good" or "ask zod", never refuses; test/schema/capture-batch-check.test.ts
// holds it to the schema on one good batch and many broken ones.
const ROLE_SET: ReadonlySet<unknown> = new Set(ROLES);
const ENTRY_KEYS: ReadonlySet<string> = new Set(["role", "content", "meta", "idem_key"]);

/** True only when the batch schema accepts `v`; false when it might not (zod then decides and names the field). */
export function plainlyGoodBatch(v: unknown): boolean {
  if (!isPlain(v)) return false;
  const { source, session, path, start, end, entries } = v;
  if (typeof source !== "string" || source.length < 1 || source.length > 4096 || source.includes("\u0000")) return false;
  if (typeof session !== "string" || nameProblem(session) !== undefined) return false;
  if (typeof path !== "string" || path.length > 4096 || path.includes("\u0000")) return false;
  if (!isCursor(start) || !isCursor(end) || !Array.isArray(entries)) return false;
  for (const item of entries) {
    if (!isPlain(item) || !hasOnly(item, 2) || !Object.hasOwn(item, "entry") || !isCursor(item.before)) return false;
    if (!isEntry(item.entry)) return false;
  }
  return true;
}

function isEntry(e: unknown): boolean {
  if (!isPlain(e)) return false;
  for (const k of Object.keys(e)) if (!ENTRY_KEYS.has(k)) return false;
  const { role, content, meta, idem_key } = e;
  if (!ROLE_SET.has(role)) return false;
  if (typeof content !== "string" || !content.isWellFormed() || !withinBytes(content, CONTENT_MAX_BYTES)) return false;
  if (typeof idem_key !== "string" || !idem_key.isWellFormed() || idem_key.length === 0 || !withinBytes(idem_key, IDEM_KEY_MAX_BYTES)) return false;
  if (idem_key.includes("\u0000")) return false;
  if (meta === undefined) return true;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return false;
  const bound = jsonBound(meta, 0);
  if (bound < 0) return false;
  // Serialized only when the bound does not settle it (metas are small: it almost always does).
  return bound <= META_MAX_BYTES || utf8Bytes(JSON.stringify(meta)) <= META_MAX_BYTES;
}

/** Whether a string's UTF-8 form is at most `max` bytes; a UTF-16 unit is at most 3 bytes, so a short string is not measured. */
function withinBytes(s: string, max: number): boolean {
  return s.length * 3 <= max || utf8Bytes(s) <= max;
}

/**
 * An upper bound of the UTF-8 bytes of `JSON.stringify(v)` when `v` is plain
 * JSON within the depth limit (what jsonProblem, common.ts, finds no problem
 * in, told without building the path it names); -1 when it is not. A UTF-16
 * unit of a string is at most 6 bytes escaped (`\u001f`), a number at most
 * 25 characters (`-0.0000012345678901234567`).
 */
function jsonBound(v: unknown, depth: number): number {
  switch (typeof v) {
    case "string":
      return v.isWellFormed() ? 2 + 6 * v.length : -1;
    case "number":
      return Number.isFinite(v) ? 25 : -1;
    case "boolean":
      return 5;
    case "object": {
      if (v === null) return 4;
      if (depth >= JSON_MAX_DEPTH) return -1;
      let size = 2;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const b = jsonBound(v[i], depth + 1);
          if (b < 0) return -1;
          size += b + 1;
        }
        return size;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return -1;
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        if (!k.isWellFormed()) return -1;
        const b = jsonBound((v as Record<string, unknown>)[k], depth + 1);
        if (b < 0) return -1;
        size += 2 + 6 * k.length + 2 + b;
      }
      return size;
    }
    default:
      return -1;
  }
}

/** A strict cursor: exactly offset, position and chunk, each a whole number from 0 to 2^53 - 1. */
function isCursor(c: unknown): boolean {
  if (!isPlain(c) || !hasOnly(c, 3)) return false;
  return wholeNumber(c.offset) && wholeNumber(c.position) && wholeNumber(c.chunk);
}

function wholeNumber(n: unknown): boolean {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}

/** An object literal's kind of object (its prototype Object's or none): what the capture reader builds. */
function isPlain(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** At most `n` own keys: with the named ones checked present, no unknown key. */
function hasOnly(o: object, n: number): boolean {
  return Object.keys(o).length === n;
}
