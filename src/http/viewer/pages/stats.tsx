/** @jsxImportSource hono/jsx */
/**
 * Stats (DESIGN.md 13): the tenant's counts and sizes, and as charts turns
 * and bytes per day (the store's `activity`, one aggregate query), the
 * payload size histogram, repeated content and bytes on disk.
 */
import type { Hono } from "hono";
import type { ActivityResult, StatsResult } from "../../../schema/results.ts";
import { DAY_MS } from "../../../store/history-page.ts";
import { type Bar, BarChart } from "../charts.tsx";
import { Layout, size } from "../layout.tsx";
import { type ViewerEnv, frame, intParam } from "../page.ts";

/** The spans the page offers, in days. */
const SPANS = [30, 90, 365] as const;

/** One bar per day from `since` to today, days without turns at 0. */
function perDay(a: ActivityResult, now: number, pick: (d: { turns: number; bytes: number }) => number, show: (n: number) => string): Bar[] {
  const byDay = new Map(a.daily.map((d) => [d.day, d]));
  const bars: Bar[] = [];
  for (let t = Date.parse(`${a.since}T00:00:00Z`); t <= now; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    const d = byDay.get(day);
    const value = d ? pick(d) : 0;
    bars.push({ label: day, value, shown: show(value), tick: day.slice(5) });
  }
  return bars;
}

/** Turns by payload size, one bar per bucket labelled with its upper bound. */
function histogramBars(buckets: StatsResult["payload_histogram"]): Bar[] {
  return buckets.map((b) => {
    const tick = b.le === null ? "more" : size(b.le).replace(".0 ", " ");
    return { label: b.le === null ? "more" : `≤ ${tick}`, value: b.count, shown: String(b.count), tick };
  });
}

/** Registers /ui/stats. */
export function statsPages(ui: Hono<ViewerEnv>): void {
  ui.get("/stats", async (c) => {
    const asked = intParam(c, "days");
    const days = SPANS.find((d) => d === asked) ?? 90;
    const now = Date.now();
    const [s, a] = await Promise.all([c.var.memory.stats(), c.var.memory.activity({ days })]);
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
    const turnsPerDay = perDay(a, now, (d) => d.turns, String);
    const bytesPerDay = perDay(a, now, (d) => d.bytes, size);
    // About 720 units wide whatever the span, a date under every 120 or so.
    const slot = Math.max(2, Math.floor(720 / turnsPerDay.length));
    const every = Math.ceil(120 / slot);
    const inSpan = a.daily.reduce((n, d) => n + d.turns, 0);
    const distinct = Math.max(0, s.turns.bytes - s.repeated.bytes);
    const disk: Bar[] = [
      { label: "store records", value: s.disk.store_bytes, shown: size(s.disk.store_bytes) },
      { label: "objects", value: s.disk.object_bytes, shown: size(s.disk.object_bytes) },
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
        <h2>Over time</h2>
        <form method="get" action="/ui/stats">
          <label>
            Span{" "}
            <select name="days">
              {SPANS.map((d) => (
                <option value={String(d)} selected={d === days}>
                  {`last ${d} days`}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Show</button>
        </form>
        <BarChart
          id="turns-per-day"
          title={`Turns per day, last ${days} days (UTC)`}
          desc={`${inSpan} turns in ${a.daily.length} of ${turnsPerDay.length} days since ${a.since}; forgotten turns are not counted.`}
          bars={turnsPerDay}
          slot={slot}
          labelEvery={every}
          labelHeader="day"
          tableSkipsZero
        />
        <BarChart
          id="bytes-per-day"
          title={`Bytes of turns per day, last ${days} days (UTC)`}
          desc={`${size(a.daily.reduce((n, d) => n + d.bytes, 0))} of turn payload since ${a.since}.`}
          bars={bytesPerDay}
          slot={slot}
          labelEvery={every}
          labelHeader="day"
          tableSkipsZero
        />
        <h2>Sizes</h2>
        <BarChart
          id="payload-histogram"
          title="Turns by payload size"
          desc={`${s.turns.count} turns in ${s.payload_histogram.length} size buckets.`}
          bars={histogramBars(s.payload_histogram)}
          slot={60}
          labelHeader="payload size"
        />
        <BarChart
          id="repeated"
          title="Repeated content"
          desc={`${size(s.repeated.bytes)} of ${size(s.turns.bytes)} of turns (${(s.repeated.share * 100).toFixed(1)}%) repeat the content of an earlier turn, in ${s.repeated.turns} turns.`}
          bars={[
            { label: "distinct", value: distinct, shown: size(distinct) },
            { label: "repeated", value: s.repeated.bytes, shown: size(s.repeated.bytes) },
          ]}
          slot={90}
          labelHeader="turn bytes"
        />
        <BarChart
          id="on-disk"
          title="Bytes on disk"
          desc={`${size(s.disk.store_bytes)} of this tenant's live records in the store and ${size(s.disk.object_bytes)} of its distinct objects.`}
          bars={disk}
          slot={100}
          labelHeader="where"
        />
      </Layout>,
    );
  });
}
