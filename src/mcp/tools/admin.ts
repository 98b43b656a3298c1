/** forget and stats: removing from memory and measuring it (DESIGN.md 6.2). */
import { ForgetInput, StatsInput } from "../../schema/ops.ts";
import type { StatsResult } from "../../schema/results.ts";
import { defineTool } from "../tool.ts";

/** The forget tool. */
export const forget = defineTool({
  name: "forget",
  title: "Forget",
  description:
    "Permanently remove things from memory: the content is purged from disk and cannot be recovered. " +
    "Use it only when the user asks to forget something, or to remove a secret that was stored by mistake. " +
    "The selector takes exactly one of: session, session_prefix, turn (an lsn), fact, fact_prefix, object (sha256:<hex>), link (an lsn), " +
    "before (an ISO time: everything older). Run it with dry_run: true first to see how many records would go. " +
    "Returns {lsn, hidden}: the forget's own lsn and how many records it removed; when nothing matches, nothing is written and lsn is null.",
  input: ForgetInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const r = await ctx.memory.forget(args);
    const what = `${r.hidden} record${r.hidden === 1 ? "" : "s"}`;
    const text = r.dry_run
      ? `Would forget ${what} (dry run: nothing was written).`
      : r.lsn === null
        ? "Nothing matched the selector, so nothing was forgotten and nothing was written."
        : `Forgot ${what} (forget lsn ${r.lsn}).`;
    return { text, structured: r };
  },
});

/** stats as a few lines a model can read. */
function renderStats(r: StatsResult): string {
  return [
    `tenant ${r.tenant}, last lsn ${r.last_lsn}`,
    `turns ${r.turns.count} (${r.turns.bytes} bytes) in ${r.sessions} sessions`,
    `facts ${r.facts.count} (${r.facts.bytes} bytes), links ${r.links.count}, objects ${r.objects.count} (${r.objects.bytes} bytes)`,
    `forgets ${r.forgets}, records forgotten ${r.forgotten}, secrets redacted ${r.redactions}`,
    `repeated content: ${r.repeated.turns} turns, ${r.repeated.bytes} bytes (${(r.repeated.share * 100).toFixed(1)}% of turn bytes)`,
    `on disk: records ${r.disk.store_bytes} bytes, objects ${r.disk.object_bytes} bytes`,
  ].join("\n");
}

/** The stats tool. */
export const stats = defineTool({
  name: "stats",
  title: "Memory statistics",
  description:
    "Counts and sizes of what memory holds: turns, sessions, facts, links and objects with their bytes, forgets, secrets redacted, " +
    "a payload size histogram, the share of repeated content, and bytes on disk. Use it when the user asks how much is stored. Takes no arguments.",
  input: StatsInput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const r = await ctx.memory.stats(args);
    return { text: renderStats(r), structured: r };
  },
});
