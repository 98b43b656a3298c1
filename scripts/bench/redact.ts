/**
 * Redaction cost and quality (DESIGN.md 7.2, issue 14 item 2, issue 29): it
 * runs on every captured chunk, so its speed is measured on typical captured
 * text with no secret in it, the same text JSON-escaped (scanned as it
 * decodes), text dense with secrets, one 3 MiB tool result, and ordinary
 * text from node_modules (_ordinary.ts), beside the machine's limits:
 * sha256sum (the machine section's figure) and one plain regex pass over the
 * same bytes. Quality: every span changed in the ordinary text is a false
 * positive (target 0, each one logged), and the labelled corpus's recall
 * and look-alikes changed (test/fixtures/redact/), tune and held-out split.
 */
import { redact } from "../../src/redact/redact.ts";
import { score, secrets } from "../../test/fixtures/redact/corpus.ts";
import { ROOT, type Figure, type Section, median, ratio, repeat, summarize } from "./_lib.ts";
import { ordinaryCorpus } from "./_ordinary.ts";
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

/** MiB per second of redacting every text, one after another (a file is one entry), one sample per run. */
function throughputOf(texts: string[], mib: number): number {
  const t0 = performance.now();
  for (const t of texts) redact(t);
  return mib / ((performance.now() - t0) / 1000);
}

/**
 * One plain regex pass over every text: what the machine does reading the
 * same bytes once with the engine redaction's rules run on (a word-ish run
 * of 20 or more, the shape most secrets share), the floor under any scanner.
 */
function plainScan(texts: string[], mib: number): { mibs: number; found: number } {
  const re = /[A-Za-z0-9_+/=-]{20,}/g;
  let found = 0;
  const t0 = performance.now();
  for (const t of texts) for (re.lastIndex = 0; re.exec(t) !== null; ) found++;
  return { mibs: mib / ((performance.now() - t0) / 1000), found };
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

    // The same turns as a tool that prints JSON hands them over: each in a JSON string (issue 29 item 3).
    const escaped = plain
      .split("\n")
      .map((line) => JSON.stringify({ stdout: line }))
      .join("\n");
    const escapedRuns = await repeat(runs, () => throughput(escaped));
    out.push(
      summarize(`typical captured text JSON-escaped (${(escaped.length / MiB).toFixed(1)} MiB)`, escapedRuns, "MiB/s", {
        ratio: beside(median(escapedRuns)),
      }),
    );

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

    // Ordinary text no one here wrote (issue 29 item 10): every span redaction changes in it is a false positive.
    const corpus = ordinaryCorpus(ROOT, (ctx.quick ? 16 : 64) * MiB);
    const texts = corpus.files.map((f) => f.text);
    const mib = corpus.bytes / MiB;
    const what = `${mib.toFixed(1)} MiB, ${corpus.files.length.toLocaleString("en-US")} files of node_modules`;
    const ordinaryRuns = await repeat(Math.min(runs, 5), () => throughputOf(texts, mib));
    const passes = await repeat(Math.min(runs, 5), () => plainScan(texts, mib));
    const limitRuns = passes.map((p) => p.mibs);
    out.push(
      summarize(`plain regex pass, ordinary text (${what})`, limitRuns, "MiB/s", {
        ratio: beside(median(limitRuns)),
        note: `${passes[0]!.found.toLocaleString("en-US")} runs of 20+ token characters`,
      }),
    );
    out.push(
      summarize(`ordinary text (${what})`, ordinaryRuns, "MiB/s", {
        ratio: ratio("plain regex pass", median(ordinaryRuns), median(limitRuns)),
        ...(sha === undefined ? {} : { note: `${(median(ordinaryRuns) / sha).toFixed(3)}× sha256sum` }),
      }),
    );
    let falsePositives = 0;
    for (const f of corpus.files) {
      const r = redact(f.text);
      if (r.redactions === 0) continue;
      falsePositives += r.redactions;
      ctx.log(`false positive: ${f.path}: ${r.kinds.join(", ")} (${r.redactions})`);
    }
    out.push({ name: "false positives on ordinary text", value: falsePositives, unit: "", note: `spans changed in ${what}` });

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
