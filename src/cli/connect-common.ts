/** What `connect` and `disconnect` share: the harness context, `--harness`, and the report's rendering. */
import { type Harness, type HarnessContext, HARNESSES, harnessNamed, type Outcome, type Selection } from "../harness/index.ts";
import { UsageError } from "./parse.ts";

export { harnessContext } from "./harness-context.ts";

/** The harnesses `--harness a,b` names (every one when absent); unknown names are usage errors. */
export function selection(ctx: HarnessContext, flag: unknown): Selection {
  if (flag === undefined || flag === "") return { ctx, harnesses: HARNESSES, explicit: false };
  const picked: Harness[] = [];
  for (const name of String(flag).split(",")) {
    const h = harnessNamed(name);
    if (!h) throw new UsageError(`--harness: unknown harness '${name.trim()}' (one of ${HARNESSES.map((x) => x.name).join(", ")})`, "harness");
    if (!picked.includes(h)) picked.push(h);
  }
  return { ctx, harnesses: picked, explicit: true };
}

/** The `--harness` flag definition. */
export const harnessArg = {
  type: "string",
  description: `only these harnesses, comma-separated (${HARNESSES.map((h) => h.name).join(", ")})`,
  valueHint: "name",
} as const;

const WORDS: Record<Outcome["status"], string> = {
  added: "added",
  unchanged: "already there",
  updated: "updated",
  removed: "removed",
  absent: "not there",
  skipped: "skipped",
  failed: "failed",
};

const WOULD: Partial<Record<Outcome["status"], string>> = { added: "would add", updated: "would update", removed: "would remove" };

/** One line per file (and the diff under it on a dry run). */
export function renderOutcomes(result: { dry_run: boolean; results: Outcome[] }): string {
  const outcomes = result.results;
  const width = Math.max(...outcomes.map((o) => o.label.length));
  const lines: string[] = [];
  for (const o of outcomes) {
    const why = o.detail ? `: ${o.detail}` : "";
    const word = (result.dry_run ? WOULD[o.status] : undefined) ?? WORDS[o.status];
    lines.push(`${o.label.padEnd(width)}  ${word}${why}${o.path && o.status !== "skipped" ? `  (${o.path})` : ""}`);
    if (o.diff) lines.push(o.diff.trimEnd());
  }
  if (result.dry_run) lines.push("dry run: nothing was written");
  return lines.join("\n");
}

/** Exit 1 when any file failed. */
export function failedExit(result: { results: Outcome[] }): number {
  return result.results.some((o) => o.status === "failed") ? 1 : 0;
}
