/** fact_set, fact_get and fact_list: named values (DESIGN.md 6.2). */
import { FactGetInput, FactListInput, FactSetInput } from "../../schema/ops.ts";
import { defineTool } from "../tool.ts";

/** A fact's value as one line of JSON. */
function renderValue(value: unknown): string {
  return JSON.stringify(value);
}

/** The fact_set tool. */
export const factSet = defineTool({
  name: "fact_set",
  title: "Set a fact",
  description:
    "Store a named value that should always be current: a setting, a preference, a project's build command, a decision that replaces an older one. " +
    "Setting a key again supersedes its old value (history is kept in the log). Keys nest with '/', e.g. project/myapp/test-command. " +
    "The value is any JSON (a string, number, object...). Returns the write's lsn; with an idem_key a retry returns duplicate: true.",
  input: FactSetInput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const r = await ctx.memory.factSet(args);
    const text = r.duplicate
      ? `Already set (same idem_key): fact ${args.key} at lsn ${r.lsn}; nothing new was written.`
      : `Set fact ${args.key} = ${renderValue(args.value)} at lsn ${r.lsn}.`;
    return { text, structured: { key: args.key, ...r } };
  },
});

/** The fact_get tool. */
export const factGet = defineTool({
  name: "fact_get",
  title: "Get a fact",
  description:
    "Read the current value of one fact by its exact key. Use fact_list to find keys. " +
    "Returns {key, value, lsn}, or a not_found error when no such fact is set.",
  input: FactGetInput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const f = await ctx.memory.factGet(args);
    return { text: `${f.key} = ${renderValue(f.value)} (lsn ${f.lsn})`, structured: f };
  },
});

/** The fact_list tool. */
export const factList = defineTool({
  name: "fact_list",
  title: "List facts",
  description:
    "List current facts with their values, in key order; filter with prefix (e.g. project/myapp/). " +
    "Use it to see what is known before asking the user again. Returns `next`: when not null, pass it as after for the next page.",
  input: FactListInput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const r = await ctx.memory.factList(args);
    const lines = r.facts.length === 0 ? ["No facts."] : r.facts.map((f) => `${f.key} = ${renderValue(f.value)}`);
    if (r.next !== null) lines.push(`--- more: call fact_list with after=${JSON.stringify(r.next)} for the next page.`);
    return { text: lines.join("\n"), structured: r };
  },
});
