/**
 * Redaction cost and quality (DESIGN.md 7.2, issue 14 item 2): it runs on
 * every captured chunk, so its speed is measured on typical captured text
 * with no secret in it, on text dense with secrets, and on one 3 MiB tool
 * result, beside the machine's sha256sum (the machine section's figure).
 * Quality is the labelled corpus's (test/fixtures/redact/): recall of
 * secrets and share of look-alikes changed, tune and held-out split.
 */
import { redact } from "../../src/redact.ts";
import { score, secrets } from "../../test/fixtures/redact/corpus.ts";
import { type Figure, type Section, median, ratio, repeat, summarize } from "./_lib.ts";
import { distractor } from "./recall/distractors.ts";

const MiB = 1 << 20;

/** Turns of realistic coding-agent chatter and tool output, joined up to `bytes`. */
function typical(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const c = distractor(i).content;
    parts.push(c);
    size += c.length + 1;
  }
  return parts.join("\n");
}

/** A tool result as capture sees one: build log lines, a lock file's hashes, JSON, base64, and a few secrets. */
function toolResult(bytes: number): string {
  const corpus = secrets().filter((s) => s.split === "tune");
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const hex = (i * 2654435761).toString(16).padStart(8, "0").repeat(8);
    const piece =
      i % 400 === 0
        ? corpus[(i / 400) % corpus.length]!.text
        : i % 3 === 0
          ? `  "node_modules/pkg-${i}": {"version": "1.${i % 40}.${i % 7}", "integrity": "sha512-${Buffer.from(hex).toString("base64")}"},`
          : i % 3 === 1
            ? `2026-11-30T12:${String(i % 60).padStart(2, "0")}:00.${i % 1000}Z INFO build step ${i} ok in ${i % 977} ms (cache key ${hex.slice(0, 40)})`
            : `src/module${i % 97}.ts(${i % 400},${i % 80}): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.`;
    parts.push(piece);
    size += piece.length + 1;
  }
  return parts.join("\n");
}

/** MiB per second of redacting `text`, one sample per run. */
function throughput(text: string): number {
  const t0 = performance.now();
  redact(text);
  return text.length / MiB / ((performance.now() - t0) / 1000);
}

const section: Section = {
  name: "redact",
  async run(ctx) {
    const out: Figure[] = [];
    const runs = ctx.quick ? 5 : 15;
    const shaKey = [...ctx.figures.keys()].find((k) => k.startsWith("machine: sha256sum"));
    const sha = shaKey ? ctx.figures.get(shaKey)!.value : undefined;
    const beside = (v: number) => ratio("sha256sum", v, sha);

    const plain = typical(4 * MiB);
    if (redact(plain).redactions !== 0) ctx.log("typical text had a redaction: the figure below includes it");
    const plainRuns = await repeat(runs, () => throughput(plain));
    out.push(summarize("typical captured text, no secrets (4 MiB)", plainRuns, "MiB/s", { ratio: beside(median(plainRuns)) }));

    const dense = secrets()
      .map((s) => s.text)
      .join("\n");
    const denseText = dense.repeat(Math.ceil(MiB / dense.length));
    const denseRuns = await repeat(runs, () => throughput(denseText));
    const per = redact(denseText).redactions / (denseText.length / MiB);
    out.push(
      summarize("text dense with secrets (1 MiB)", denseRuns, "MiB/s", {
        ratio: beside(median(denseRuns)),
        note: `${Math.round(per).toLocaleString("en-US")} secrets per MiB`,
      }),
    );

    const big = toolResult(3 * MiB);
    const bigMs = await repeat(runs, () => {
      const t0 = performance.now();
      redact(big);
      return performance.now() - t0;
    });
    out.push(
      summarize("one 3 MiB tool result", bigMs, "ms", { note: `${((3 / median(bigMs)) * 1000).toFixed(0)} MiB/s, ${redact(big).redactions} secrets in it` }),
    );

    for (const split of ["tune", "heldout"] as const) {
      const s = score((t) => redact(t).text, split);
      out.push({
        name: `corpus recall ${split}`,
        value: 1 - s.missed.length / s.secrets,
        unit: "",
        note: `${s.secrets - s.missed.length} of ${s.secrets} secrets gone`,
      });
      out.push({
        name: `corpus false positives ${split}`,
        value: s.changed.length / s.lookalikes,
        unit: "",
        note: `${s.changed.length} of ${s.lookalikes} look-alikes changed`,
      });
      for (const m of s.missed) ctx.log(`missed (${split}): ${m.id}`);
      for (const c of s.changed) ctx.log(`changed (${split}): ${c.id}`);
    }
    return out;
  },
};

export default section;
