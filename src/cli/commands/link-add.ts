import type { WriteResult } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withWritingMemory } from "../sync-detached.ts";
import { stringFlag } from "../parse.ts";
import { LinkAddInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";

/** `zerodb link add URL`: a reference, never fetched (D1). */
export default zcommand({
  meta: { name: "link add", description: "Remember a URL (http/https) with an optional title and note; it is never fetched" },
  args: {
    address: { type: "positional", description: "the http or https URL (never fetched)", required: true },
    title: { type: "string", description: "a title, searchable", valueHint: "text" },
    note: { type: "string", description: "a note, searchable", valueHint: "text" },
    "idem-key": { type: "string", description: "an idempotency key: a retry with it is not written twice", valueHint: "key" },
  },
  run: (args) => {
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(LinkAddInput, {
      url: String(args.address),
      ...(args.title !== undefined ? { title: stringFlag(args.title) } : {}),
      ...(args.note !== undefined ? { note: stringFlag(args.note) } : {}),
      ...(args["idem-key"] !== undefined ? { idem_key: String(args["idem-key"]) } : {}),
    });
    return withWritingMemory(args, (m) => m.linkAdd(input));
  },
  human: (r: WriteResult) => (r.duplicate ? `already there: lsn ${r.lsn} (duplicate)` : `added link: lsn ${r.lsn}`),
});
