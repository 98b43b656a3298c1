/** What every engine checks of an imported record's payload before restoring it. */
import { ZeroDbError } from "../errors.ts";
import { CLOCK_SKEW_MAX_MS, LSN_RESTORE_MAX } from "../limits.ts";
import { Digest, IdemKey, Name, Tenant } from "../schema/common.ts";
import { Entry, FactSetInput, LinkAddInput, ObjectPutMeta } from "../schema/ops.ts";
import { parseInput } from "../schema/parse.ts";
import type { TapeRecord } from "../schema/tape.ts";

/**
 * An imported record obeys the same rules as a live write (I6): a crafted
 * export cannot plant a session name, meta or value the operations refuse.
 */
export function checkPayload(rec: TapeRecord, at: string): void {
  parseInput(Tenant, rec.tenant, `${at}.tenant`);
  // The import moves the store's LSN counter to its last record: past this, its next LSNs would not be exact numbers (I1).
  if (rec.lsn > LSN_RESTORE_MAX) {
    throw new ZeroDbError("invalid_input", `${at}.lsn: ${rec.lsn} is past the highest lsn an import takes (${LSN_RESTORE_MAX})`, { field: `${at}.lsn` });
  }
  const when = timeProblem(rec.ts);
  if (when !== undefined) throw new ZeroDbError("invalid_input", `${at}.ts: ${when}`, { field: `${at}.ts` });
  if ("forgotten_by" in rec) {
    // A forget hides records at or below its own LSN (I8).
    if (rec.forgotten_by <= rec.lsn) throw new ZeroDbError("invalid_input", `${at}: forgotten_by must be greater than lsn`, { field: `${at}.forgotten_by` });
    return;
  }
  // A key or an object name every engine can hold (no NUL: src/schema/common.ts refuseNul).
  if (rec.idem_key !== undefined) parseInput(IdemKey, rec.idem_key, `${at}.idem_key`);
  switch (rec.kind) {
    case "turn":
      parseInput(Entry, { role: rec.role, content: rec.content, ...(Object.keys(rec.meta).length ? { meta: rec.meta } : {}) }, at);
      parseInput(Name, rec.session, `${at}.session`);
      return;
    case "fact":
      parseInput(FactSetInput, { key: rec.key, value: rec.value }, at);
      return;
    case "link":
      parseInput(LinkAddInput, { url: rec.url, ...(rec.title !== null ? { title: rec.title } : {}), ...(rec.note !== null ? { note: rec.note } : {}) }, at);
      return;
    case "object":
      parseInput(Digest, rec.object, `${at}.object`);
      if (rec.name !== null) parseInput(ObjectPutMeta, { name: rec.name }, at);
      return;
    case "forget":
      return;
  }
}

/** An ISO 8601 UTC time as zerodb writes one (`Date.prototype.toISOString`), seconds and fraction optional. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?Z$/;

/**
 * Why a record's time (an ISO string, or milliseconds since the epoch) is
 * not one a store could have written, or undefined: it must parse, be no
 * earlier than 1970 and no later than the importing machine's clock allows
 * for (CLOCK_SKEW_MAX_MS ahead). `as_of`, `forget --before` and activity
 * read these times; an unreadable one would be stored as NaN.
 */
export function timeProblem(t: string | number, now = Date.now()): string | undefined {
  const ms = typeof t === "number" ? t : ISO_UTC.test(t) ? Date.parse(t) : Number.NaN;
  if (!Number.isFinite(ms)) return `${JSON.stringify(String(t).slice(0, 40))} is not an ISO 8601 UTC time`;
  if (ms < 0) return `${new Date(ms).toISOString()} is before 1970`;
  if (ms > now + CLOCK_SKEW_MAX_MS) return `${new Date(ms).toISOString()} is in the future (this machine's clock says ${new Date(now).toISOString()})`;
  return undefined;
}
