/** @jsxImportSource hono/jsx */
/**
 * Server-rendered SVG bar charts (DESIGN.md 13: no script, no CDN). Each
 * chart is an image with a title and a description a screen reader reads,
 * one `<title>` per bar for a pointer, and the same figures as a table
 * below it for anyone who cannot read the picture.
 */

/** One bar: its label, its height, its value as the page writes it, and a shorter label for the axis. */
export interface Bar {
  label: string;
  value: number;
  shown: string;
  tick?: string;
}

/** What a chart draws and says. */
export interface ChartProps {
  /** Unique on the page: the ids of its title and description. */
  id: string;
  title: string;
  desc: string;
  bars: Bar[];
  /** Width of one bar's slot in SVG units. */
  slot?: number;
  /** Label every n-th bar (a dense series of days); every bar when absent. */
  labelEvery?: number;
  /** The header of the table's label column. */
  labelHeader?: string;
  /** Leave bars of value 0 out of the table (days without turns). */
  tableSkipsZero?: boolean;
}

const HEIGHT = 140;
const TOP = 16;

/** A bar chart with its table. */
export function BarChart(props: ChartProps) {
  const slot = props.slot ?? 44;
  const every = props.labelEvery ?? 1;
  const max = Math.max(1, ...props.bars.map((b) => b.value));
  const width = Math.max(props.bars.length * slot + 10, 120);
  const rows = props.tableSkipsZero ? props.bars.filter((b) => b.value !== 0) : props.bars;
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <svg
        class="chart"
        width={width}
        height={HEIGHT + TOP + 30}
        viewBox={`0 0 ${width} ${HEIGHT + TOP + 30}`}
        role="img"
        aria-labelledby={`${props.id}-title`}
        aria-describedby={`${props.id}-desc`}
      >
        <title id={`${props.id}-title`}>{props.title}</title>
        <desc id={`${props.id}-desc`}>{props.desc}</desc>
        <line class="axis" x1={4} y1={HEIGHT + TOP} x2={width - 4} y2={HEIGHT + TOP} />
        {props.bars.map((b, i) => {
          const h = b.value === 0 ? 0 : Math.max(1, Math.round((b.value / max) * HEIGHT));
          const x = i * slot + 8;
          return (
            <g>
              <rect class="bar" x={x} y={HEIGHT + TOP - h} width={Math.max(1, slot - (slot > 12 ? 10 : 2))} height={h}>
                <title>{`${b.label}: ${b.shown}`}</title>
              </rect>
              {every === 1 && (
                <text x={x} y={TOP - 4}>
                  {b.shown}
                </text>
              )}
              {i % every === 0 && (
                <text x={x} y={HEIGHT + TOP + 16}>
                  {b.tick ?? b.label}
                </text>
              )}
            </g>
          );
        })}
        {every !== 1 && (
          <text x={8} y={TOP - 4}>
            {`max ${props.bars.find((b) => b.value === max)?.shown ?? "0"}`}
          </text>
        )}
      </svg>
      <details>
        <summary>{`${props.title} as a table`}</summary>
        {rows.length === 0 ? (
          <p>Nothing to show.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{props.labelHeader ?? "label"}</th>
                <th scope="col" class="num">
                  value
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((b) => (
                <tr>
                  <th scope="row">{b.label}</th>
                  <td class="num">{b.shown}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </details>
    </figure>
  );
}
