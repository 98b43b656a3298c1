/** search and sessions: finding things across the whole memory (DESIGN.md 6.2). */
import { SearchInput, SessionsInput } from "../../schema/ops.ts";
import { orList, unmatchedWords } from "../../search/query.ts";
import { defineTool } from "../tool.ts";

/** The search tool. */
export const search = defineTool({
  name: "search",
  title: "Search memory",
  description:
    "Search everything remembered, in every session (and link titles and notes), best match first. " +
    "Ask in your own words: a question or a description works as well as keywords (why did we turn off the upload retry?). " +
    "A turn matches on any word of the query, near forms included (deploy finds deployed); turns holding more of the words, and rarer ones, rank first, then what the user chose to remember. " +
    'Put "an exact phrase" in quotes, end a word with * for a prefix, set all_words to require every word; narrow with session, prefix (a session-name prefix) or role. ' +
    "Use it before starting a task to find earlier decisions, or whenever the user refers to something said before. " +
    "Returns hits with lsn, session, role, the query words each matched (or, for the reply or tool result right after a match, which turn it follows), a snippet with [matches] marked, and a score; read the surrounding turns with recall.",
  input: SearchInput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const r = await ctx.memory.search(args);
    const unmatched = unmatchedWords(args.query, r.hits);
    const lines =
      r.hits.length === 0
        ? [`No hits for ${JSON.stringify(args.query)}.`]
        : [
            `${r.hits.length} hit${r.hits.length === 1 ? "" : "s"} for ${JSON.stringify(args.query)}, best first:`,
            ...(unmatched.length > 0 ? [`No hit holds ${orList(unmatched)}: these share only common words with the query.`] : []),
            ...r.hits.map((h) =>
              h.kind === "link"
                ? `#${h.lsn} link ${h.url}: ${h.snippet}`
                : `#${h.lsn} ${h.session} ${h.role} (${h.follows === undefined ? `matched ${h.matched.join(", ")}` : `follows the match #${h.follows}`}; score ${h.score.toFixed(2)}): ${h.snippet}`,
            ),
          ];
    return { text: lines.join("\n"), structured: r };
  },
});

/** The sessions tool. */
export const sessions = defineTool({
  name: "sessions",
  title: "List sessions",
  description:
    "List the sessions in memory by name, with how many turns and bytes each holds and its first and last lsn. " +
    "Session names nest with '/' (a project's session is <dir>-<hash>, captured conversations sit below it); filter with prefix. " +
    "Use it to discover what exists before reading with recall. Returns `next`: when not null, pass it as after for the next page.",
  input: SessionsInput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const r = await ctx.memory.sessions(args);
    const lines =
      r.sessions.length === 0
        ? ["No sessions."]
        : r.sessions.map((s) => `${s.name}: ${s.turns} turn${s.turns === 1 ? "" : "s"}, ${s.bytes} bytes, lsn ${s.first_lsn}–${s.last_lsn}`);
    if (r.next !== null) lines.push(`--- more: call sessions with after=${JSON.stringify(r.next)} for the next page.`);
    return { text: lines.join("\n"), structured: r };
  },
});
