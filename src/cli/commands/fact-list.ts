import type { FactListResult } from "../../schema/results.ts";
import { AS_OF_ARG, asOfFlag } from "../as-of-flag.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { intFlag, stringFlag } from "../parse.ts";
import { FactListInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";

/** `zerodb fact list`. */
export default zcommand({
  meta: { name: "fact list", description: "List current facts" },
  args: {
    // Named as forget names it; --prefix stays as a hidden alias for scripts (issue 17, item 3).
    "fact-prefix": { type: "string", alias: ["prefix"], description: "only keys starting with this", valueHint: "prefix" },
    after: { type: "string", description: "only keys after this (the previous page's next)", valueHint: "key" },
    limit: { type: "string", description: "page size, 1 to 1000 (default 100)", valueHint: "n" },
    "as-of": AS_OF_ARG,
  },
  run: (args) => {
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(FactListInput, {
      prefix: stringFlag(args["fact-prefix"]),
      after: stringFlag(args.after),
      limit: intFlag("limit", args.limit),
      as_of: asOfFlag(args),
    });
    return withMemory(args, (m) => m.factList(input));
  },
  human: (r: FactListResult) => {
    const lines = r.facts.map((f) => `${f.key} = ${JSON.stringify(f.value)}`);
    if (r.facts.length === 0) lines.push("(no facts)");
    if (r.next !== null) lines.push(`(more: --after ${JSON.stringify(r.next)})`);
    return lines.join("\n");
  },
});
