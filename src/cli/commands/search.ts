import { ZeroDbError } from "../../errors.ts";
import type { SearchHit, SearchResult } from "../../schema/results.ts";
import { AS_OF_ARG, asOfFlag } from "../as-of-flag.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { intFlag, stringFlag } from "../parse.ts";
import { SearchInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { orList, unmatchedWords } from "../../search/query.ts";

/** `zerodb search`: find what was said, in any words (DESIGN.md 11). */
export default zcommand({
  meta: { name: "search", description: "Search memory: words or a question, best match first" },
  args: {
    // Every word after the command is the query: `zerodb search deploy key` needs no quotes.
    query: { type: "positional", description: 'what to find: words or a question ("a phrase" in quotes, word* for a prefix)', required: true, variadic: true },
    session: { type: "string", description: "only this session", valueHint: "name" },
    // --prefix was this flag's first name; it stays as a hidden alias so scripts keep working (issue 17, item 3).
    "session-prefix": { type: "string", alias: ["prefix"], description: "only sessions whose name starts with this", valueHint: "prefix" },
    role: { type: "string", description: "only turns of this role", valueHint: "role" },
    limit: { type: "string", description: "at most this many hits, 1 to 1000 (default 100)", valueHint: "n" },
    "all-words": { type: "boolean", description: "only turns holding every word of the query" },
    "include-noise": { type: "boolean", description: "also search harness bookkeeping and zerodb's own captured results" },
    // Several phrasings (DESIGN.md 11): declared `repeat`, so every --or is kept, in order (command.ts).
    or: {
      type: "string",
      description:
        "another phrasing of the same question, in the words the answer would use (an error text, a command, a file name); searched too and fused by rank, up to 8",
      valueHint: "phrasing",
      repeat: true,
    },
    "as-of": AS_OF_ARG,
  },
  run: (args) => {
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = asFlags(() =>
      parseInput(SearchInput, {
        query: queryOf(args),
        queries: orOf(args),
        session: stringFlag(args.session),
        prefix: stringFlag(args["session-prefix"]),
        role: stringFlag(args.role),
        limit: intFlag("limit", args.limit),
        all_words: args["all-words"] === true ? true : undefined,
        include_noise: args["include-noise"] === true ? true : undefined,
        as_of: asOfFlag(args),
      }),
    );
    return withMemory(args, (m) => m.search(input));
  },
  human: (r: SearchResult, args) => {
    if (r.hits.length === 0) return "(no hits)";
    const more = orOf(args);
    // With several phrasings each hit names the ones that found it, by their words.
    const phrasings = more === undefined ? undefined : [queryOf(args), ...more];
    const lines = r.hits.map((h) => humanHit(h, phrasings));
    const unmatched = phrasings === undefined ? unmatchedWords(queryOf(args), r.hits) : [];
    if (unmatched.length > 0) lines.unshift(`(no hit holds ${orList(unmatched)}: these share only common words with the query)`);
    return lines.join("\n");
  },
});

/** Runs `parse`, naming a bad phrasing by the flag that gave it: queries.1 is the second --or. */
function asFlags<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof ZeroDbError) || !err.field?.startsWith("queries")) throw err;
    const n = /^queries\.(\d+)$/.exec(err.field)?.[1];
    const flag = n === undefined ? "--or" : `--or #${Number(n) + 1}`;
    throw new ZeroDbError(err.code, err.message.replace(err.field, flag), { field: "or", cause: err });
  }
}

/** The phrasings of --or, in order; undefined when none was given. */
function orOf(args: { or?: unknown }): string[] | undefined {
  return args.or === undefined ? undefined : [args.or].flat().map(String);
}

/** The query: every word after the command, joined. */
function queryOf(args: { _?: unknown; query?: unknown }): string {
  const words = args._ as string[] | undefined;
  return words?.length ? words.join(" ") : String(args.query);
}

function humanHit(h: SearchHit, phrasings?: string[]): string {
  const where = h.kind === "link" ? `link ${h.url}` : `${h.session} ${h.role}`;
  const why = h.follows === undefined ? h.matched.join(", ") : `after #${h.follows}`;
  const by = phrasings && h.found_by ? ` [found by ${h.found_by.map((i) => JSON.stringify(phrasings[i] ?? "")).join(", ")}]` : "";
  return `#${h.lsn} ${where} (${why})${by}: ${h.snippet}`;
}
