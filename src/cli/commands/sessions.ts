import type { SessionsResult } from "../../schema/results.ts";
import { AS_OF_ARG, asOfFlag } from "../as-of-flag.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { intFlag, stringFlag } from "../parse.ts";
import { SessionsInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";

/** `zerodb sessions`: list sessions. */
export default zcommand({
  meta: { name: "sessions", description: "List sessions" },
  args: {
    // --prefix was this flag's first name; it stays as a hidden alias so scripts keep working (issue 17, item 3).
    "session-prefix": { type: "string", alias: ["prefix"], description: "only sessions whose name starts with this", valueHint: "prefix" },
    after: { type: "string", description: "only sessions named after this (the previous page's next)", valueHint: "name" },
    limit: { type: "string", description: "page size, 1 to 1000 (default 100)", valueHint: "n" },
    "as-of": AS_OF_ARG,
  },
  run: (args) => {
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(SessionsInput, {
      prefix: stringFlag(args["session-prefix"]),
      after: stringFlag(args.after),
      limit: intFlag("limit", args.limit),
      as_of: asOfFlag(args),
    });
    return withMemory(args, (m) => m.sessions(input));
  },
  human: (r: SessionsResult) => {
    const lines = r.sessions.map((s) => `${s.name}  ${s.turns} turns, ${s.bytes} bytes, lsn ${s.first_lsn}..${s.last_lsn}`);
    if (r.sessions.length === 0) lines.push("(no sessions)");
    if (r.next !== null) lines.push(`(more: --after ${JSON.stringify(r.next)})`);
    return lines.join("\n");
  },
});
