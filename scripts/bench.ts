/**
 * `bun run bench [--quick] [--only a,b]`: every section in one run, printed as
 * a table and written as JSON to bench-results/latest.json. Timings live
 * here, never in tests (the machines are shared and noisy).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { $ } from "bun";
import { type Figure, ROOT, type Section, remove, tmp } from "./bench/_lib.ts";
import { SECTIONS } from "./bench/sections.ts";

const { values } = parseArgs({ options: { quick: { type: "boolean" }, only: { type: "string" } } });
const quick = values.quick ?? false;
const only = values.only ? new Set(values.only.split(",")) : undefined;

await $`bun scripts/build.ts --quiet`.cwd(ROOT);
const bin = join(ROOT, "dist", "zerodb");
const figures = new Map<string, Figure>();
const started = Date.now();
const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? "?", memory_gib: Math.round(totalmem() / 2 ** 30), platform: `${process.platform}-${process.arch}`, bun: Bun.version };
console.log(`zerodb bench (${quick ? "quick" : "full"}) on ${machine.cpus} × ${machine.cpu}, ${machine.memory_gib} GiB, ${machine.platform}, bun ${machine.bun}`);

const sections: Section[] = (await Promise.all(SECTIONS.map((load) => load()))).filter((s) => !only || only.has(s.name) || s.name === "machine");
for (const section of sections) {
  const dir = tmp(`zerodb-bench-${section.name}-`);
  const t0 = performance.now();
  console.log(`\n## ${section.name}`);
  try {
    const out = await section.run({ quick, bin, tmp: dir, figures, log: (l) => console.log(`   ${l}`) });
    for (const f of out) {
      figures.set(`${section.name}: ${f.name}`, f);
      console.log(formatFigure(f));
    }
  } catch (err) {
    console.log(`   section failed: ${(err as Error).stack ?? err}`);
  } finally {
    remove(dir);
  }
  console.log(`   (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}

mkdirSync(join(ROOT, "bench-results"), { recursive: true });
const out = { when: new Date().toISOString(), quick, machine, seconds: (Date.now() - started) / 1000, figures: Object.fromEntries(figures) };
writeFileSync(join(ROOT, "bench-results", "latest.json"), `${JSON.stringify(out, null, 2)}\n`);
console.log(`\nwrote bench-results/latest.json (${out.seconds.toFixed(0)} s)`);

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const a = Math.abs(n);
  return a >= 1000 ? Math.round(n).toLocaleString("en-US") : a >= 10 ? n.toFixed(1) : a >= 0.1 ? n.toFixed(2) : n.toPrecision(2);
}

function formatFigure(f: Figure): string {
  const spread = f.min !== undefined && f.max !== undefined && f.runs && f.runs > 1 ? ` [${fmt(f.min)}–${fmt(f.max)}, n=${f.runs}]` : "";
  const r = f.ratio ? `  = ${fmt(f.ratio.value)}× ${f.ratio.of}${f.ratio.target ? ` (target ${f.ratio.target})` : ""}` : "";
  const note = f.note ? `  (${f.note})` : "";
  return ` ${f.name.padEnd(52)} ${`${fmt(f.value)} ${f.unit}`.padStart(18)}${spread}${r}${note}`;
}
