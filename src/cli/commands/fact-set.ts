import type { WriteResult } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withWritingMemory } from "../sync-detached.ts";
import { FactSetInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";

/** `zerodb fact set KEY VALUE`: VALUE is JSON, or a plain string when it does not parse. */
export default zcommand({
  meta: { name: "fact set", description: "Set a fact (VALUE is JSON, or a plain string when it does not parse)" },
  args: {
    key: { type: "positional", description: "the fact's key", required: true },
    value: { type: "positional", description: "the value", required: true },
    "idem-key": { type: "string", description: "an idempotency key", valueHint: "key" },
  },
  run: (args) => {
    const raw = String(args.value);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(FactSetInput, { key: String(args.key), value, ...(args["idem-key"] !== undefined ? { idem_key: String(args["idem-key"]) } : {}) });
    return withWritingMemory(args, (m) => m.factSet(input));
  },
  human: (r: WriteResult) => (r.duplicate ? `already set: lsn ${r.lsn} (duplicate)` : `set: lsn ${r.lsn}`),
});
