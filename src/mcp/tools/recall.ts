/** recall: a page of a session, by default this project's (DESIGN.md 6.2). */
import { Name } from "../../schema/common.ts";
import { ReadInput } from "../../schema/ops.ts";
import type { Turn } from "../../schema/results.ts";
import { defineTool } from "../tool.ts";

/** recall's input: read's, with the session optional. */
export const RecallInput = ReadInput.extend({
  session: Name.optional().describe("the session to read (default: this project's session)"),
});

/** One turn as a model reads it: a header line, then the content verbatim. */
export function renderTurn(t: Turn): string {
  const meta = Object.keys(t.meta).length > 0 ? ` ${JSON.stringify(t.meta)}` : "";
  return `--- #${t.lsn} ${t.role} ${t.ts}${meta}\n${t.content}`;
}

/** The recall tool. */
export const recall = defineTool({
  name: "recall",
  title: "Recall",
  description:
    "Read back what was remembered in a session, oldest first: by default this project's session, where remember writes. " +
    "Use it at the start of work to see what earlier sessions recorded, or to read a session found with sessions or search. " +
    "Returns a page of turns (lsn, role, time, meta, content) and `next`: when it is not null, call recall again with after set to it for the following page.",
  input: RecallInput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const session = args.session ?? ctx.projectSession;
    const page = await ctx.memory.read({ session, after: args.after, limit: args.limit, as_of: args.as_of });
    const lines: string[] = [];
    if (page.turns.length === 0) {
      lines.push(
        args.after
          ? `Session ${session} has no turns after lsn ${args.after}.`
          : `Session ${session} ${args.as_of === undefined ? "holds nothing yet" : `held nothing as of ${args.as_of}`}.`,
      );
    } else {
      const first = page.turns[0]!.lsn;
      const last = page.turns[page.turns.length - 1]!.lsn;
      lines.push(`Session ${session}: ${page.turns.length} turn${page.turns.length === 1 ? "" : "s"} (lsn ${first}–${last}).`);
      for (const t of page.turns) lines.push(renderTurn(t));
    }
    if (page.next !== null) lines.push(`--- more: call recall with after=${page.next} for the next page.`);
    return { text: lines.join("\n"), structured: { session, ...page } };
  },
});
