import type { SearchResult } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { intFlag, stringFlag } from "../parse.ts";
import { SearchInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";

/** `zerodb search`: full-text search. */
export default zcommand({
  meta: { name: "search", description: "Full-text search (every word must match; BM25 order)" },
  args: {
    query: { type: "positional", description: "the words to find", required: true },
    session: { type: "string", description: "only this session", valueHint: "name" },
    prefix: { type: "string", description: "only sessions whose name starts with this", valueHint: "prefix" },
    role: { type: "string", description: "only turns of this role", valueHint: "role" },
    limit: { type: "string", description: "at most this many hits, 1 to 1000 (default 100)", valueHint: "n" },
  },
  run: (args) => {
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(SearchInput, {
      query: String(args.query),
      session: stringFlag(args.session),
      prefix: stringFlag(args.prefix),
      role: stringFlag(args.role),
      limit: intFlag("limit", args.limit),
    });
    return withMemory(args, (m) => m.search(input));
  },
  human: (r: SearchResult) =>
    r.hits.length === 0
      ? "(no hits)"
      : r.hits.map((h) => `#${h.lsn} ${h.kind === "link" ? `link ${h.url}` : `${h.session} ${h.role}`}: ${h.snippet}`).join("\n"),
});
