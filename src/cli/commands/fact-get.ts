import type { Fact } from "../../schema/results.ts";
import { AS_OF_ARG, asOfFlag } from "../as-of-flag.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { FactGetInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";

/** `zerodb fact get KEY`. */
export default zcommand({
  meta: { name: "fact get", description: "Get a fact's current value, or its value at a point (--as-of)" },
  args: { key: { type: "positional", description: "the fact's key", required: true }, "as-of": AS_OF_ARG },
  run: (args) => {
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(FactGetInput, { key: String(args.key), as_of: asOfFlag(args) });
    return withMemory(args, (m) => m.factGet(input));
  },
  human: (r: Fact) => (typeof r.value === "string" ? r.value : JSON.stringify(r.value, null, 2)),
});
