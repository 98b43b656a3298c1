/**
 * The capture batch as a Store takes it (DESIGN.md 7.2): checked by the
 * engine before its transaction, so a bad batch is refused naming the field
 * and writes nothing (I6), whichever engine keeps the cursors.
 */
import { z } from "zod";
import { IdemKey, Name } from "./common.ts";
import { Entry } from "./ops.ts";

/** A place in a transcript: byte offset and index of the next line, and its next chunk. */
const Cursor = z.strictObject({
  offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  position: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  chunk: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});

/** A batch of one source's entries, each with the cursor before it, and the cursor after all of them. */
export const CaptureBatchInput = z.object({
  source: z.string().min(1).max(4096),
  session: Name,
  path: z.string().max(4096),
  start: Cursor,
  end: Cursor,
  // No upper bound here: a batch is bounded by the capture run (DESIGN.md 7.2), each entry by the turn limits.
  entries: z.array(z.strictObject({ entry: Entry.extend({ idem_key: IdemKey }), before: Cursor })),
});
