/**
 * `GET /v1/sync/tape` (DESIGN.md 16): the token's tenant's tape after a
 * server LSN, a page at a time, what `zerodb sync` pulls. It reads the same
 * export the engines give `zerodb export --after` (a range of the tape's
 * key, never the rows before it), on SQLite and PostgreSQL alike, and only
 * of the tenant the token names (I5).
 *
 * `POST /v1/sync/turn`: one turn too large for a JSON body once escaped,
 * what `zerodb sync` pushes that way (src/schema/sync.ts has its shape). It
 * is appended through the tenant's Memory like any other: validated,
 * redacted, durable before the answer.
 */
import { ZeroDbError, invalid } from "../../errors.ts";
import { CONTENT_MAX_BYTES, PAGE_MAX, SYNC_PAGE_MAX_BYTES } from "../../limits.ts";
import { AppendInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { SYNC_PROTOCOL, SYNC_TURN_HEAD_MAX_BYTES, SYNC_TURN_TYPE, SyncTapeInput, type SyncTapePage } from "../../schema/sync.ts";
import type { Store } from "../../store/types.ts";
import { readLimited } from "../../util/read-limited.ts";
import { digitsValue } from "../../util/whole-number.ts";
import type { RouteGroup } from "../env.ts";
import { queryInput } from "../query.ts";

/** The body of `POST /v1/sync/turn` at most: the header line and the content at its limit. */
const TURN_BODY_MAX_BYTES = SYNC_TURN_HEAD_MAX_BYTES + 1 + CONTENT_MAX_BYTES;

/** The append a `POST /v1/sync/turn` body describes (415, 413 or 400 when it is not one); parsed by AppendInput after. */
async function readTurnBody(req: Request): Promise<unknown> {
  if ((req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase() !== SYNC_TURN_TYPE) {
    throw new ZeroDbError("unsupported_media_type", `content-type: send Content-Type: ${SYNC_TURN_TYPE}`, { field: "content-type" });
  }
  const tooLarge = () => new ZeroDbError("too_large", `body: over the limit of ${TURN_BODY_MAX_BYTES} bytes for one turn`, { field: "body" });
  const declared = req.headers.get("content-length");
  if (declared !== null && (digitsValue(declared) ?? 0) > TURN_BODY_MAX_BYTES) throw tooLarge();
  const bytes = await readLimited(req.body, { max: TURN_BODY_MAX_BYTES, over: tooLarge });
  const nl = bytes.subarray(0, SYNC_TURN_HEAD_MAX_BYTES + 1).indexOf(0x0a);
  if (nl < 0) throw invalid("body", `must start with a JSON line of at most ${SYNC_TURN_HEAD_MAX_BYTES} bytes, then the content`);
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  let head: unknown;
  try {
    head = JSON.parse(utf8.decode(bytes.subarray(0, nl)));
  } catch {
    throw invalid("body", "its first line is not JSON");
  }
  if (typeof head !== "object" || head === null || Array.isArray(head)) throw invalid("body", "its first line must be a JSON object");
  let content: string;
  try {
    content = utf8.decode(bytes.subarray(nl + 1));
  } catch {
    throw invalid("content", "is not valid UTF-8");
  }
  const { session, ...entry } = head as Record<string, unknown>;
  return { session, entries: [{ ...entry, content }] };
}

/** Registers /v1/sync/tape over a store. */
export function syncRoutes(store: Store): RouteGroup {
  return (app) => {
    app.get("/v1/sync/tape", async (c) => {
      const input = queryInput(c.req.url, SyncTapeInput, { after: { int: true }, limit: { int: true } });
      const tenant = c.var.memory.tenant;
      const limit = input.limit ?? PAGE_MAX;
      const records: Record<string, unknown>[] = [];
      let bytes = 0;
      let more = false;
      // Breaking out of the loop closes the engine's read (its snapshot ends with the page).
      for await (const rec of store.exportTape({ tenant, after: input.after ?? 0 })) {
        if (records.length >= limit || (records.length > 0 && bytes >= SYNC_PAGE_MAX_BYTES)) {
          more = true;
          break;
        }
        // A forgotten record says only that its LSN is taken and by which forget: nothing a replica could store.
        const out: Record<string, unknown> = "forgotten_by" in rec ? { lsn: rec.lsn, kind: rec.kind, forgotten_by: rec.forgotten_by } : { ...rec };
        delete out.tenant;
        delete out.op_hash;
        bytes += JSON.stringify(out).length;
        records.push(out);
      }
      const page: SyncTapePage = {
        protocol: SYNC_PROTOCOL,
        tenant,
        records,
        next: more ? (records.at(-1)?.lsn as number) : null,
      };
      return c.json(page);
    });
    app.post("/v1/sync/turn", async (c) => {
      const input = parseInput(AppendInput, await readTurnBody(c.req.raw));
      return c.json(await c.var.memory.append(input));
    });
  };
}
