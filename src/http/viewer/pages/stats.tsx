/** @jsxImportSource hono/jsx */
/** Stats: the tenant's counts and sizes, and the payload size histogram as a server-rendered SVG chart. */
import type { Hono } from "hono";
import type { StatsResult } from "../../../schema/results.ts";
import { Layout, size } from "../layout.tsx";
import { type ViewerEnv, frame } from "../page.ts";

/** A bar chart of the payload histogram: one bar per bucket, labelled with its upper bound. */
function Histogram(props: { buckets: StatsResult["payload_histogram"] }) {
  const w = 44;
  const h = 140;
  const max = Math.max(1, ...props.buckets.map((b) => b.count));
  const width = props.buckets.length * w + 10;
  return (
    <svg width={width} height={h + 40} viewBox={`0 0 ${width} ${h + 40}`} role="img" aria-label="Turns by payload size">
      {props.buckets.map((b, i) => {
        const bh = Math.round((b.count / max) * h);
        return (
          <g>
            <rect class="bar" x={i * w + 8} y={h - bh + 12} width={w - 10} height={bh}>
              <title>{`${b.count} turns ≤ ${b.le === null ? "∞" : size(b.le)}`}</title>
            </rect>
            <text x={i * w + 8} y={10}>
              {b.count}
            </text>
            <text x={i * w + 8} y={h + 28}>
              {b.le === null ? "more" : size(b.le).replace(".0 ", " ")}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** Registers /ui/stats. */
export function statsPages(ui: Hono<ViewerEnv>): void {
  ui.get("/stats", async (c) => {
    const s = await c.var.memory.stats();
    const rows: [string, string][] = [
      ["sessions", String(s.sessions)],
      ["turns", `${s.turns.count} (${size(s.turns.bytes)})`],
      ["facts", `${s.facts.count} (${size(s.facts.bytes)})`],
      ["links", `${s.links.count} (${size(s.links.bytes)})`],
      ["objects", `${s.objects.count} (${size(s.objects.bytes)})`],
      ["repeated content", `${s.repeated.turns} turns, ${size(s.repeated.bytes)} (${(s.repeated.share * 100).toFixed(1)}%)`],
      ["forgets", `${s.forgets} (${s.forgotten} records forgotten)`],
      ["secrets redacted", String(s.redactions)],
      ["on disk", `${size(s.disk.store_bytes)} in the store, ${size(s.disk.object_bytes)} of objects`],
      ["last LSN", String(s.last_lsn)],
    ];
    return c.html(
      <Layout {...frame(c, "Stats")}>
        <h1>Stats</h1>
        <table>
          <tbody>
            {rows.map(([k, v]) => (
              <tr>
                <th scope="row">{k}</th>
                <td>{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h2>Turns by payload size</h2>
        <Histogram buckets={s.payload_histogram} />
      </Layout>,
    );
  });
}
