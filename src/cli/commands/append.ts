import type { AppendResult } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { decodeUtf8, jsonObjectFlag, stringFlag } from "../parse.ts";
import { AppendInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";

/** `zerodb append`: one entry, content from the argument or stdin. */
export default zcommand({
  meta: { name: "append", description: "Append one entry to a session (content from the argument, or stdin)" },
  args: {
    session: { type: "string", description: "the session name", required: true, valueHint: "name" },
    role: { type: "string", description: "user, assistant, tool, system or note (default note)", valueHint: "role" },
    "idem-key": { type: "string", description: "an idempotency key: a retry with it is not written twice", valueHint: "key" },
    meta: { type: "string", description: "a JSON object of extra data", valueHint: "json" },
    redact: { type: "boolean", default: true, description: "take secrets out first; --no-redact stores the content as given (its meta then says redaction: off)" },
    content: { type: "positional", description: "the content (read from stdin when absent)", required: false },
  },
  async run(args) {
    const meta = jsonObjectFlag("meta", args.meta);
    const content = args.content !== undefined ? String(args.content) : decodeUtf8("content", await Bun.stdin.bytes());
    const entry = {
      role: stringFlag(args.role) ?? "note",
      content,
      ...(meta ? { meta } : {}),
      ...(args["idem-key"] !== undefined ? { idem_key: String(args["idem-key"]) } : {}),
    };
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(AppendInput, { session: String(args.session), entries: [entry], ...(args.redact === false ? { redact: false } : {}) });
    return withMemory(args, (m) => m.append(input));
  },
  human: (r: AppendResult) =>
    [
      ...r.entries.map((e) => (e.duplicate ? `already there: lsn ${e.lsn} (duplicate)` : `appended: lsn ${e.lsn}`)),
      ...(r.redacted ? [`${r.redacted} secret${r.redacted === 1 ? " was" : "s were"} redacted`] : []),
    ].join("\n"),
});
