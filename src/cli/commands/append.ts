import type { AppendResult } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withWritingMemory } from "../sync-detached.ts";
import { decodeUtf8, jsonObjectFlag, stringFlag } from "../parse.ts";
import { AppendInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { CONTENT_MAX_BYTES } from "../../limits.ts";
import { hintIfTerminal, readStdin } from "../stdin.ts";

/** `zerodb append`: one entry, content from the argument or stdin. */
export default zcommand({
  meta: { name: "append", description: "Append one entry to a session (content from the argument, or stdin)" },
  args: {
    session: { type: "string", description: "the session name", required: true, valueHint: "name" },
    role: { type: "string", description: "user, assistant, tool, system or note (default note)", valueHint: "role" },
    "idem-key": { type: "string", description: "an idempotency key: a retry with it is not written twice", valueHint: "key" },
    meta: { type: "string", description: "a JSON object of extra data", valueHint: "json" },
    redact: {
      type: "boolean",
      default: true,
      description: "take secrets out first; --no-redact stores the content as given (its meta then says redaction: off)",
    },
    // Every word after the flags is the content: `zerodb append --session n this is my note` needs no quotes.
    content: { type: "positional", description: "the content, one or more words (read from stdin when absent)", required: false, variadic: true },
  },
  async run(args) {
    const meta = jsonObjectFlag("meta", args.meta);
    const words = (args._ as string[] | undefined) ?? [];
    const content = words.length > 0 ? words.join(" ") : await contentFromStdin();
    const entry = {
      role: stringFlag(args.role) ?? "note",
      content,
      ...(meta ? { meta } : {}),
      ...(args["idem-key"] !== undefined ? { idem_key: String(args["idem-key"]) } : {}),
    };
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(AppendInput, { session: String(args.session), entries: [entry], ...(args.redact === false ? { redact: false } : {}) });
    return withWritingMemory(args, (m) => m.append(input));
  },
  human: (r: AppendResult) =>
    [
      ...r.entries.map((e) => (e.duplicate ? `already there: lsn ${e.lsn} (duplicate)` : `appended: lsn ${e.lsn}`)),
      ...(r.redacted ? [`${r.redacted} secret${r.redacted === 1 ? " was" : "s were"} redacted`] : []),
    ].join("\n"),
});

async function contentFromStdin(): Promise<string> {
  hintIfTerminal("the content", "give it as words: zerodb append --session NAME your note");
  return decodeUtf8("content", await readStdin("content", CONTENT_MAX_BYTES));
}
