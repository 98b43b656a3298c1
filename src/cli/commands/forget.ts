import type { ForgetResult } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withWritingMemory } from "../sync-detached.ts";
import { intFlag, stringFlag } from "../parse.ts";
import { ForgetInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";

/** `zerodb forget`: exactly one selector flag. */
export default zcommand({
  meta: { name: "forget", description: "Forget (hide and purge) what one selector matches" },
  args: {
    session: { type: "string", description: "every turn of this session", valueHint: "name" },
    // --prefix selects sessions here as in `sessions` and `search` (issue 29 item 11); a hidden alias, as there.
    "session-prefix": { type: "string", alias: ["prefix"], description: "every session whose name starts with this", valueHint: "prefix" },
    turn: { type: "string", description: "the turn with this LSN", valueHint: "lsn" },
    fact: { type: "string", description: "every value of this fact key", valueHint: "key" },
    "fact-prefix": { type: "string", description: "every fact whose key starts with this", valueHint: "prefix" },
    object: { type: "string", description: "every reference to this object", valueHint: "sha256:hex" },
    link: { type: "string", description: "the link with this LSN", valueHint: "lsn" },
    before: { type: "string", description: "everything older than this ISO 8601 time", valueHint: "time" },
    "dry-run": { type: "boolean", description: "count what would go, write nothing" },
  },
  run: (args) => {
    const selector = Object.fromEntries(
      Object.entries({
        session: stringFlag(args.session),
        session_prefix: stringFlag(args["session-prefix"]),
        turn: intFlag("turn", args.turn),
        fact: stringFlag(args.fact),
        fact_prefix: stringFlag(args["fact-prefix"]),
        object: stringFlag(args.object),
        link: intFlag("link", args.link),
        before: stringFlag(args.before),
      }).filter(([, v]) => v !== undefined),
    );
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(ForgetInput, { selector, ...(args["dry-run"] ? { dry_run: true } : {}) });
    return withWritingMemory(args, (m) => m.forget(input));
  },
  // A forget matching nothing writes no record (lsn null), and says so rather than "forgot 0".
  human: (r: ForgetResult) =>
    r.dry_run ? `would forget ${r.hidden} record(s)` : r.lsn === null ? "nothing matched; nothing was written" : `forgot ${r.hidden} record(s) at lsn ${r.lsn}`,
});
