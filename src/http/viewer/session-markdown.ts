/** A session as Markdown for the viewer's download (DESIGN.md section 17), as `zerodb export --format markdown` writes it. */
import { sessionMarkdown } from "../../history/markdown.ts";
import { allTurns } from "../../history/read-all.ts";
import type { Memory } from "../../store/types.ts";

/** The session's Markdown as of a point (or now), or undefined when it holds no turns then. */
export async function sessionMarkdownOf(m: Memory, session: string, asOf: string | undefined): Promise<string | undefined> {
  const turns = await allTurns(m, session, asOf);
  return turns.length === 0 ? undefined : sessionMarkdown(session, turns);
}
