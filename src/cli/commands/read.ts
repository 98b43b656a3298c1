import type { ReadResult } from "../../schema/results.ts";
import { AS_OF_ARG, asOfFlag } from "../as-of-flag.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { intFlag } from "../parse.ts";
import { ReadInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";

/** `zerodb read`: a page of a session. */
export default zcommand({
  meta: { name: "read", description: "Read a page of a session's turns" },
  args: {
    session: { type: "string", description: "the session name", required: true, valueHint: "name" },
    after: { type: "string", description: "only turns after this LSN (the previous page's next)", valueHint: "lsn" },
    limit: { type: "string", description: "page size, 1 to 1000 (default 100)", valueHint: "n" },
    "as-of": AS_OF_ARG,
  },
  run: (args) => {
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(ReadInput, {
      session: String(args.session),
      after: intFlag("after", args.after),
      limit: intFlag("limit", args.limit),
      as_of: asOfFlag(args),
    });
    return withMemory(args, (m) => m.read(input));
  },
  human: (r: ReadResult) => {
    const lines = r.turns.map((t) => `#${t.lsn} ${t.ts} ${t.role}: ${t.content}`);
    if (r.turns.length === 0) lines.push("(no turns)");
    if (r.next !== null) lines.push(`(more: --after ${r.next})`);
    return lines.join("\n");
  },
});
