import type { Fact } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";

/** `zerodb fact get KEY`. */
export default zcommand({
  meta: { name: "fact get", description: "Get a fact's current value" },
  args: { key: { type: "positional", description: "the fact's key", required: true } },
  run: (args) => withMemory(args, (m) => m.factGet({ key: String(args.key) })),
  human: (r: Fact) => (typeof r.value === "string" ? r.value : JSON.stringify(r.value, null, 2)),
});
