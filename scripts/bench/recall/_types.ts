/**
 * The shapes of the labelled retrieval set (DESIGN.md 11): sessions written
 * as compact scripts of steps, and queries aimed at one fact each.
 */

/** One step of a scripted session; a tool step becomes a tool_use line and its tool_result line. */
export type Step =
  | { u: string }
  | { a: string; think?: string }
  | { think: string }
  | { tool: string; input: Record<string, unknown>; out: string; error?: boolean };

/** A Claude Code session as a script. */
export interface SessionScript {
  /** The harness session id (the transcript's file name). */
  id: string;
  cwd: string;
  /** ISO time of the first line. */
  start: string;
  branch: string;
  steps: Step[];
}

/** How a query is phrased. */
export type Style = "keyword" | "question" | "paraphrase";
/** Tune queries may be studied one by one; held-out ones are only ever reported as numbers. */
export type Split = "tune" | "heldout";

/** One labelled query. */
export interface Query {
  style: Style;
  split: Split;
  query: string;
  /** An exact substring (case-sensitive, 12+ chars) of the one turn that holds the fact. */
  answer: string;
}

/** A Bash call and its output. */
export const bash = (command: string, out: string, description?: string, error = false): Step => ({
  tool: "Bash",
  input: description ? { command, description } : { command },
  out,
  ...(error ? { error } : {}),
});

/** A Read call and the file it returned. */
export const read = (file_path: string, out: string): Step => ({ tool: "Read", input: { file_path }, out });

/** An Edit call. */
export const edit = (file_path: string, old_string: string, new_string: string): Step => ({
  tool: "Edit",
  input: { file_path, old_string, new_string },
  out: `The file ${file_path} has been updated.`,
});

/** A Grep call and its matches. */
export const grep = (pattern: string, path: string, out: string): Step => ({ tool: "Grep", input: { pattern, path, output_mode: "content", "-n": true }, out });

/** Numbered lines as Read returns them. */
export function numbered(text: string, from = 1): string {
  return text
    .split("\n")
    .map((l, i) => `${String(from + i).padStart(6)}\t${l}`)
    .join("\n");
}
