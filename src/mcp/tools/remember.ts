/** remember: append one entry to a session, secrets redacted first (DESIGN.md 6.2, 7.2). */
import { z } from "zod";
import { ZeroDbError, isZeroDbError } from "../../errors.ts";
import { Name, Role } from "../../schema/common.ts";
import { Entry } from "../../schema/ops.ts";
import { defineTool } from "../tool.ts";

/** remember's input: one append entry whose role and session are optional. */
export const RememberInput = z.strictObject({
  content: Entry.shape.content,
  role: Role.optional().describe("who said it: user, assistant, tool, system or note (default note)"),
  session: Name.optional().describe("the session to add it to (default: this project's session)"),
  meta: Entry.shape.meta,
  idem_key: Entry.shape.idem_key,
});

/** The store names fields inside its append input; remember's caller knows them without the prefix. */
function asRememberError(err: unknown): unknown {
  if (!isZeroDbError(err) || !err.field?.startsWith("entries.0.")) return err;
  const field = err.field.slice("entries.0.".length);
  return new ZeroDbError(err.code, err.message.replace(`${err.field}:`, `${field}:`), { field, cause: err });
}

/** The remember tool. */
export const remember = defineTool({
  name: "remember",
  title: "Remember",
  description:
    "Save something to the user's durable memory so that later sessions, and other agents on this machine, can find it: " +
    "decisions and their reasons, preferences, findings, summaries of work done, anything worth keeping beyond this conversation. " +
    "Appends one entry to a session (by default this project's session). Secrets (keys, tokens, passwords, <private> spans) are " +
    "replaced by [redacted:<kind>] before anything is stored. Returns the entry's lsn (its position in the log) and the session it went to; " +
    "with an idem_key, a retry returns the original lsn with duplicate: true instead of writing twice.",
  input: RememberInput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    const session = args.session ?? ctx.projectSession;
    // meta.redacted is zerodb's own count, summed by stats (DESIGN.md 7.2): a model cannot set it.
    // The store takes the secrets out (every door's writes go through the same scan) and counts them.
    let meta = args.meta as Record<string, unknown> | undefined;
    if (meta && "redacted" in meta) {
      const { redacted: _reserved, ...rest } = meta;
      meta = Object.keys(rest).length > 0 ? rest : undefined;
    }
    const entry = { role: args.role ?? "note", content: args.content, ...(meta ? { meta } : {}), ...(args.idem_key ? { idem_key: args.idem_key } : {}) };
    const result = await ctx.memory.append({ session, entries: [entry] }).catch((err) => {
      throw asRememberError(err);
    });
    const { lsn, duplicate } = result.entries[0]!;
    const redacted = result.redacted ?? 0;
    const note = redacted > 0 ? ` ${redacted} secret${redacted === 1 ? " was" : "s were"} redacted.` : "";
    const text = duplicate
      ? `Already remembered (same idem_key): lsn ${lsn} in session ${session}; nothing new was written.`
      : `Remembered as lsn ${lsn} in session ${session}.${note}`;
    return { text, structured: { session, lsn, duplicate, redacted } };
  },
});
