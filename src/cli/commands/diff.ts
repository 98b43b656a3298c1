import type { DiffResult } from "../../schema/results.ts";
import { DiffInput } from "../../schema/ops.ts";
import { parseInput } from "../../schema/parse.ts";
import { zcommand } from "../command.ts";
import { withMemory } from "../context.ts";
import { intFlag, stringFlag } from "../parse.ts";

/** A JSON value on one line, cut to `max` characters (JSON.stringify escapes every control character). */
function short(value: unknown, max = 80): string {
  const s = JSON.stringify(value);
  return s.length > max ? `${s.slice(0, max).toWellFormed()}…` : s;
}

/** LSN ranges as text: 5–7, 9. */
function ranges(lsns: [number, number][]): string {
  return lsns.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(", ");
}

/** `zerodb diff --from A [--to B]`: what was added between two points (DESIGN.md section 17). */
export default zcommand({
  meta: { name: "diff", description: "What was added between two points (LSNs or ISO 8601 times): turns per session, facts old and new, forgets" },
  args: {
    from: { type: "string", description: "the earlier point: an LSN or an ISO 8601 time", required: true, valueHint: "lsn|time" },
    to: { type: "string", description: "the later point (default: now)", valueHint: "lsn|time" },
    "session-prefix": { type: "string", alias: ["prefix"], description: "only sessions and fact keys starting with this", valueHint: "prefix" },
    limit: { type: "string", description: "at most this many sessions and this many facts, 1 to 1000 (default 100)", valueHint: "n" },
  },
  run: (args) => {
    // Validated before the store is opened: bad input never touches disk (I6, D3).
    const input = parseInput(DiffInput, {
      from: String(args.from),
      to: stringFlag(args.to),
      prefix: stringFlag(args["session-prefix"]),
      limit: intFlag("limit", args.limit),
    });
    return withMemory(args, (m) => m.diff(input));
  },
  human: (r: DiffResult) => {
    const lines = [`from LSN ${r.from} to LSN ${r.to}`];
    if (r.sessions.length === 0 && r.facts.length === 0 && r.forgets.length === 0 && r.links === 0 && r.objects === 0) lines.push("(nothing added)");
    if (r.sessions.length > 0) lines.push("turns added:", ...r.sessions.map((s) => `  ${s.name}: +${s.turns} (LSN ${ranges(s.lsns)})`));
    if (r.facts.length > 0) {
      lines.push(
        "facts set:",
        ...r.facts.map(
          (f) => `  ${f.key}: ${f.old === null ? "(new)" : short(f.old.value)} -> ${short(f.new.value)}${f.sets > 1 ? ` (set ${f.sets} times)` : ""}`,
        ),
      );
    }
    if (r.forgets.length > 0) {
      lines.push(
        "forgets:",
        ...r.forgets.map(
          (f) =>
            `  LSN ${f.lsn} at ${f.ts}: hid ${f.hidden} (${Object.entries(f.kinds)
              .map(([k, n]) => `${k} ${n}`)
              .join(", ")}), LSN ${ranges(f.lsns)}`,
        ),
      );
    }
    if (r.links > 0 || r.objects > 0) lines.push(`links added: ${r.links}, objects added: ${r.objects}`);
    if (r.truncated) lines.push("(more sessions or facts changed: raise --limit or narrow --session-prefix)");
    return lines.join("\n");
  },
});
