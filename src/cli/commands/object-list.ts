import type { ObjectListResult } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { intFlag } from "../parse.ts";
import { ObjectListInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";

/** `zerodb object list`. */
export default zcommand({
  meta: { name: "object list", description: "List the objects this tenant holds" },
  args: {
    after: { type: "string", description: "only objects after this LSN (the previous page's next)", valueHint: "lsn" },
    limit: { type: "string", description: "page size, 1 to 1000 (default 100)", valueHint: "n" },
  },
  run: (args) => {
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(ObjectListInput, { after: intFlag("after", args.after), limit: intFlag("limit", args.limit) });
    return withMemory(args, (m) => m.objectList(input));
  },
  human: (r: ObjectListResult) => {
    const lines = r.objects.map((o) => `${o.object}  ${o.size}  ${o.type}${o.name !== null ? `  ${o.name}` : ""}  (lsn ${o.lsn})`);
    if (r.objects.length === 0) lines.push("(no objects)");
    if (r.next !== null) lines.push(`(more: --after ${r.next})`);
    return lines.join("\n");
  },
});
