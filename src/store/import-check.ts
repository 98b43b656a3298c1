/** What every engine checks of an imported record's payload before restoring it. */
import { ZeroDbError } from "../errors.ts";
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
