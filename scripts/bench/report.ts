/** How the bench prints figures and the closing summary of targets, as text and as Markdown. */
import type { Figure } from "./_lib.ts";
import type { Verdict } from "./targets.ts";

/** A number the way a reader wants it: thousands separated, a few significant digits. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const a = Math.abs(n);
  return a >= 1000 ? Math.round(n).toLocaleString("en-US") : a >= 10 ? n.toFixed(1) : a >= 0.1 ? n.toFixed(2) : n.toPrecision(2);
}

/**
 * A ratio to three significant digits (so 0.504 against a limit of 0.5 does
 * not print as 0.50), with "N× faster" beside it when it compares times.
 */
export function fmtRatio(value: number, unit: string, of: string): string {
  const faster = unit === "ms" && value > 0 && value < 1 ? ` (${fmt(1 / value)}× faster)` : "";
  const digits = Number.isFinite(value) && Math.abs(value) < 100 ? value.toPrecision(3) : fmt(value);
  return `${digits}× ${of}${faster}`;
}

/** A figure's value with its unit and spread. */
export function fmtValue(f: Figure): string {
  const spread = f.min !== undefined && f.max !== undefined && f.runs && f.runs > 1 ? ` [${fmt(f.min)}–${fmt(f.max)}, n=${f.runs}]` : "";
  return `${fmt(f.value)}${f.unit ? ` ${f.unit}` : ""}${spread}`;
}

/** One line of the figures table. */
export function formatFigure(f: Figure): string {
  const spread = f.min !== undefined && f.max !== undefined && f.runs && f.runs > 1 ? ` [${fmt(f.min)}–${fmt(f.max)}, n=${f.runs}]` : "";
  const r = f.ratio ? `  = ${fmtRatio(f.ratio.value, f.unit, f.ratio.of)}${f.ratio.target ? ` (target ${f.ratio.target})` : ""}` : "";
  const note = f.note ? `  (${f.note})` : "";
  return ` ${f.name.padEnd(52)} ${`${fmt(f.value)} ${f.unit}`.padStart(18)}${spread}${r}${note}`;
}

interface Row {
  what: string;
  wanted: string;
  measured: string;
  ratio: string;
  outcome: string;
}

function rows(verdicts: Verdict[]): Row[] {
  return verdicts.map((v) => ({
    what: v.target.what,
    wanted: v.target.wanted,
    measured: v.figure ? fmtValue(v.figure) : "—",
    ratio: v.ratio !== undefined && v.of ? fmtRatio(v.ratio, v.figure?.unit ?? "", v.of) : "—",
    outcome: v.outcome,
  }));
}

/** The closing summary as aligned text lines. */
export function summaryText(verdicts: Verdict[]): string[] {
  const head: Row = { what: "target", wanted: "wanted", measured: "measured", ratio: "ratio", outcome: "" };
  const all = [head, ...rows(verdicts)];
  const w = (k: keyof Row) => Math.max(...all.map((r) => r[k].length));
  return all.map((r) =>
    ` ${r.what.padEnd(w("what"))}  ${r.wanted.padEnd(w("wanted"))}  ${r.measured.padEnd(w("measured"))}  ${r.ratio.padEnd(w("ratio"))}  ${r.outcome}`.trimEnd(),
  );
}

/** The closing summary as a Markdown table (what docs/performance.md shows). */
export function summaryMarkdown(verdicts: Verdict[]): string {
  const lines = ["| target | wanted | measured | ratio | |", "|---|---|---|---|---|"];
  for (const r of rows(verdicts)) lines.push(`| ${r.what} | ${r.wanted} | ${r.measured} | ${r.ratio} | ${r.outcome} |`);
  return `${lines.join("\n")}\n`;
}
