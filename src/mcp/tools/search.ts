/** search and sessions: finding things across the whole memory (DESIGN.md 6.2). */
import { SearchInput, SessionsInput } from "../../schema/ops.ts";
import type { SearchResult } from "../../schema/results.ts";
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
    "Search matches words, not meaning, so pass several phrasings: besides query, give queries 2 to 4 other phrasings of the same question, each in the words the answer itself would likely use " +
    "(the error text, the command, the file, function or setting name, the tool's own term), not synonyms of your question; the phrasings are searched together and fused by rank, and a turn several of them find ranks first. " +
    "Use it before starting a task to find earlier decisions, or whenever the user refers to something said before. " +
    "Returns hits with lsn, session, role, the query words each matched (or, for the reply or tool result right after a match, which turn it follows), a snippet with [matches] marked, and a score; " +
    "with queries, found_by names the phrasings that found each hit (0 is query, 1 the first of queries); a turn another machine wrote (synced) has its origin. Read the surrounding turns with recall.",
  input: SearchInput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const r = await ctx.memory.search(args);
    return { text: renderHits(args, r).join("\n"), structured: r };
  },
});

/** The text a model reads: what was asked, then one line per hit; with several phrasings, which found each hit. */
function renderHits(args: SearchInput, r: SearchResult): string[] {
  const phrasings = [args.query, ...(args.queries ?? [])];
  const several = args.queries !== undefined;
  const asked = several ? `any of ${phrasings.length} phrasings` : JSON.stringify(args.query);
  if (r.hits.length === 0) return [`No hits for ${asked}${several ? `: ${phrasings.map((p, i) => `[${i}] ${JSON.stringify(p)}`).join(", ")}` : ""}.`];
  const head = [`${r.hits.length} hit${r.hits.length === 1 ? "" : "s"} for ${asked}, best first:`];
  if (several) {
    const found = new Set(r.hits.flatMap((h) => h.found_by ?? []));
    head.push(`Phrasings: ${phrasings.map((p, i) => `[${i}] ${JSON.stringify(p)}${found.has(i) ? "" : " (found none of these hits)"}`).join(", ")}`);
  } else {
    const unmatched = unmatchedWords(args.query, r.hits);
    if (unmatched.length > 0) head.push(`No hit holds ${orList(unmatched)}: these share only common words with the query.`);
  }
  return [
    ...head,
    ...r.hits.map((h) => {
      const by = h.found_by === undefined ? undefined : `found by ${h.found_by.map((i) => `[${i}]`).join(", ")}`;
      if (h.kind === "link") return `#${h.lsn} link ${h.url}${by === undefined ? "" : ` (${by})`}: ${h.snippet}`;
      const why = h.follows === undefined ? `matched ${h.matched.join(", ")}` : `follows the match #${h.follows}`;
      const from = h.origin === undefined ? "" : `; written on store ${h.origin.store} as #${h.origin.lsn}`;
      return `#${h.lsn} ${h.session} ${h.role} (${by === undefined ? "" : `${by}; `}${why}; score ${h.score.toFixed(2)}${from}): ${h.snippet}`;
    }),
  ];
}

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
