import type { StatsResult } from "../../schema/results.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { databaseArg } from "../args.ts";

/** `zerodb stats`. */
export default zcommand({
  meta: { name: "stats", description: "Counts and sizes of what the store holds" },
  args: { ...databaseArg },
  run: (args) => withMemory(args, (m) => m.stats({})),
  human: (r: StatsResult) =>
    [
      `tenant ${r.tenant}, last lsn ${r.last_lsn}`,
      `turns    ${r.turns.count} (${r.turns.bytes} bytes) in ${r.sessions} sessions`,
      `facts    ${r.facts.count} (${r.facts.bytes} bytes)`,
      `links    ${r.links.count}`,
      `objects  ${r.objects.count} (${r.objects.bytes} bytes)`,
      `forgets  ${r.forgets}, records forgotten ${r.forgotten}, redactions ${r.redactions}`,
      `repeated ${r.repeated.turns} turns, ${r.repeated.bytes} bytes (${(r.repeated.share * 100).toFixed(1)}% of turn bytes)`,
      `sizes    ${r.payload_histogram.map((h) => `${h.le === null ? ">4M" : `≤${h.le}`}:${h.count}`).join(" ")}`,
      `disk     records ${r.disk.store_bytes} bytes, objects ${r.disk.object_bytes} bytes`,
    ].join("\n"),
});
