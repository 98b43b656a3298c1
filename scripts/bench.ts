/**
 * `bun run bench [--quick] [--only a,b] [--bin FILE]`: every section in one
 * run, printed as a table, closed by a summary of the targets (met / missed),
 * and written to bench-results/latest.json (every figure) and latest.md (the
 * summary). Timings live here, never in tests (the machines are shared and noisy).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { $ } from "bun";
import { type Figure, ROOT, type Section, remove, tmp } from "./bench/_lib.ts";
import { fmt, formatFigure, summaryMarkdown, summaryText } from "./bench/report.ts";
import { SECTIONS } from "./bench/sections.ts";
import { TARGETS, judge } from "./bench/targets.ts";

const USAGE = `usage: bun run bench [--quick] [--only SECTION,...] [--bin FILE]

  --quick        smaller stores and fewer runs (about 2 minutes)
  --only LIST    only these sections (comma-separated; the machine's own limits always run)
  --bin FILE     time this zerodb binary instead of building dist/zerodb-bench
  --help         this text

Writes bench-results/latest.json and latest.md; a full run writes docs/performance-targets.md.`;

let values: { quick?: boolean; only?: string; bin?: string; help?: boolean };
try {
  ({ values } = parseArgs({ options: { quick: { type: "boolean" }, only: { type: "string" }, bin: { type: "string" }, help: { type: "boolean" } } }));
} catch (err) {
  console.error(`bench: ${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  const names = (await Promise.all(SECTIONS.map((load) => load()))).map((s) => (s.optIn ? `${s.name} (only with --only)` : s.name));
  console.log(`${USAGE}\n\nsections, in the order they run: ${names.join(", ")}`);
  process.exit(0);
}
const quick = values.quick ?? false;
const only = values.only ? new Set(values.only.split(",")) : undefined;
if (only) {
  const known = new Set((await Promise.all(SECTIONS.map((load) => load()))).map((s) => s.name));
  const unknown = [...only].filter((n) => !known.has(n));
  if (unknown.length > 0) {
    console.error(`bench: no section named ${unknown.join(", ")} (--only); sections: ${[...known].join(", ")}`);
    process.exit(2);
  }
}
/** What a run may take on a 2-core machine, every section included (issue 8). */
const BUDGET_S = quick ? 120 : 900;

// Its own binary, so a bench never replaces the dist/zerodb that tests or a user run.
const bin = values.bin ? resolve(values.bin) : join(ROOT, "dist", "zerodb-bench");
if (!values.bin) await $`${process.execPath} scripts/build.ts --quiet --outfile ${bin}`.cwd(ROOT);
const figures = new Map<string, Figure>();
const started = Date.now();
const machine = {
  cpus: cpus().length,
  cpu: cpus()[0]?.model ?? "?",
  memory_gib: Math.round(totalmem() / 2 ** 30),
  platform: `${process.platform}-${process.arch}`,
  bun: Bun.version,
};
const describe = `${machine.cpus} × ${machine.cpu}, ${machine.memory_gib} GiB, ${machine.platform}, bun ${machine.bun}`;
console.log(`zerodb bench (${quick ? "quick" : "full"}) on ${describe}`);

const sections: Section[] = (await Promise.all(SECTIONS.map((load) => load()))).filter((s) => (only ? only.has(s.name) : !s.optIn) || s.name === "machine");
const failed: string[] = [];
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
    failed.push(section.name);
    console.log(`   section failed: ${(err as Error).stack ?? err}`);
  } finally {
    remove(dir);
  }
  console.log(`   (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}

const verdicts = TARGETS.map((t) => judge(t, figures));
const seconds = (Date.now() - started) / 1000;
const fsync = figures.get("machine: raw append+fsync (300 B)");
console.log("\n## summary: targets");
for (const line of summaryText(verdicts)) console.log(line);
const met = verdicts.filter((v) => v.outcome === "met").length;
console.log(`\n${met} of ${verdicts.length} targets met${failed.length ? `; sections failed: ${failed.join(", ")}` : ""}`);
if (seconds > BUDGET_S) console.log(`over budget: ${seconds.toFixed(0)} s for a ${quick ? "quick" : "full"} run (budget ${BUDGET_S} s)`);

mkdirSync(join(ROOT, "bench-results"), { recursive: true });
const out = {
  when: new Date().toISOString(),
  quick,
  machine,
  seconds,
  figures: Object.fromEntries(figures),
  targets: verdicts.map((v) => ({
    what: v.target.what,
    wanted: v.target.wanted,
    value: v.figure?.value,
    unit: v.figure?.unit,
    ratio: v.ratio,
    of: v.of,
    outcome: v.outcome,
  })),
};
writeFileSync(join(ROOT, "bench-results", "latest.json"), `${JSON.stringify(out, null, 2)}\n`);
const disk = fsync ? `, disk ${fmt(fsync.value)} fsyncs/s (300 B append + fsync, median)` : "";
const md = `Measured ${out.when.slice(0, 10)} by \`bun run bench${quick ? " --quick" : ""}\` (${seconds.toFixed(0)} s) on ${describe}${disk}.\n\n${summaryMarkdown(verdicts)}`;
writeFileSync(join(ROOT, "bench-results", "latest.md"), md);
console.log(`wrote bench-results/latest.json and latest.md (${seconds.toFixed(0)} s)`);
// A whole run, every section through, is what docs/performance.md shows: the table is written, not pasted.
if (!quick && !only && failed.length === 0) {
  const page = `<!-- Written by \`bun run bench\` (scripts/bench.ts) after a full run; not edited by hand. -->\n\n# Performance: the latest full run\n\n${md}`;
  writeFileSync(join(ROOT, "docs", "performance-targets.md"), page);
  console.log("wrote docs/performance-targets.md");
}
