/**
 * Bytes on disk, and what zstd would change (issue 20, DESIGN.md 15, D7).
 * Realistic captured transcripts (the recall set's Claude Code sessions, each
 * line through the capture path's own lineEntries, plus coding-agent chatter
 * from the distractor generator) are stored in a fresh SQLite store; then:
 * bytes on disk per MiB of transcript today, how much of that is tape
 * payload, what Bun's native zstd at levels 1 and 3 would make of the
 * payload per turn and per page of 64 turns, of text and image objects, and
 * the read and search cost it would add beside today's.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { lineEntries } from "../../src/capture/entries.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { type Figure, type Section, median, percentile, ratio } from "./_lib.ts";
import { distractor } from "./recall/distractors.ts";
import { SESSIONS, transcriptLines } from "./recall/transcripts.ts";

const MiB = 1 << 20;
const PAGE = 64;

/** Bytes of every file under a directory. */
function du(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  return n;
}

function zstd(bytes: Uint8Array, level: number): Uint8Array {
  return Bun.zstdCompressSync(bytes, { level });
}

const section: Section = {
  name: "compression",
  async run(ctx) {
    const target = (ctx.quick ? 4 : 16) * MiB;
    const dir = join(ctx.tmp, "store");
    const store = openSqliteStore(dir, { redact: false });
    const m = store.memory("local");
    let transcriptBytes = 0;
    let entries = 0;
    const appendMs: number[] = [];
    // The recall sessions again and again under new ids (a person's weeks of sessions), with chatter between them.
    for (let round = 0; transcriptBytes < target; round++) {
      for (const s of SESSIONS) {
        const lines = transcriptLines(s);
        for (const [position, line] of lines.entries()) {
          const text = JSON.stringify(line);
          transcriptBytes += Buffer.byteLength(text) + 1;
          const { entries: es } = lineEntries(text, { idemPrefix: `${s.id}-${round}`, position, redact: false });
          if (es.length === 0) continue;
          const t0 = performance.now();
          await m.append({ session: `cc/${s.id}-${round}`, entries: es });
          appendMs.push(performance.now() - t0);
          entries += es.length;
        }
        for (let i = 0; i < 20; i++) {
          const d = distractor(round * 1000 + i);
          const line = JSON.stringify({ type: "user", message: { role: "user", content: d.content } });
          transcriptBytes += line.length + 1;
          await m.append({ session: `cc/${s.id}-${round}`, entries: [{ role: "user", content: d.content }] });
          entries++;
        }
      }
    }
    store.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    const onDisk = du(dir);
    const perMiB = onDisk / (transcriptBytes / MiB);

    // The payload zstd would compress: each live row's text and data.
    const rows = store.db.query("SELECT text, data FROM tape WHERE forgotten_by IS NULL ORDER BY lsn").all() as { text: string | null; data: string | null }[];
    const payloads = rows.map((r) => Buffer.from(`${r.text ?? ""}${r.data ?? ""}`, "utf8"));
    const payload = payloads.reduce((n, p) => n + p.length, 0);
    const perTurn = (level: number) => payloads.reduce((n, p) => n + Math.min(p.length, zstd(p, level).length), 0);
    const perPage = (level: number) => {
      let n = 0;
      for (let i = 0; i < payloads.length; i += PAGE) n += zstd(Buffer.concat(payloads.slice(i, i + PAGE)), level).length;
      return n;
    };
    const z1 = perTurn(1);
    const z3 = perTurn(3);
    const p3 = perPage(3);
    // Bytes on disk if the payload shrank and everything else (word index, b-tree overhead) stayed.
    const withPayload = (z: number) => (onDisk - payload + z) / (transcriptBytes / MiB);

    // Costs: compressing a turn on append, decompressing on read and for search snippets.
    const sample = payloads.filter((_, i) => i % 7 === 0);
    let t0 = performance.now();
    const compressed = sample.map((p) => zstd(p, 3));
    const compressUs = ((performance.now() - t0) * 1000) / sample.length;
    t0 = performance.now();
    for (const c of compressed) Bun.zstdDecompressSync(c);
    const decompressUs = ((performance.now() - t0) * 1000) / sample.length;
    const pageReadMs: number[] = [];
    const sessions = (await m.sessions({ limit: 20 })).sessions;
    for (const s of sessions) {
      const t = performance.now();
      await m.read({ session: s.name, limit: 100 });
      pageReadMs.push(performance.now() - t);
    }
    const queries = ["connection pool timeout", "deploy staging rollback", "flaky test retry", "cache invalidation", "upload resume chunk"];
    const searchMs: number[] = [];
    for (let r = 0; r < (ctx.quick ? 3 : 10); r++) {
      for (const q of queries) {
        const t = performance.now();
        await m.search({ query: q, limit: 20 });
        searchMs.push(performance.now() - t);
      }
    }

    // Objects: an image (already compressed: random-looking bytes) and a text log.
    const image = crypto.getRandomValues(new Uint8Array(256 * 1024));
    const log = Buffer.from(
      Array.from({ length: 4000 }, (_, i) => `2026-11-30T12:${String(i % 60).padStart(2, "0")}:00Z INFO step ${i} ok in ${i % 977} ms\n`).join(""),
    );
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"));
    store.close();

    const today = (v: number) => ratio("today", v, perMiB, "<= 0.4 (issue 20)");
    const out: Figure[] = [
      { name: "captured transcript", value: transcriptBytes / MiB, unit: "MiB", note: `${entries} entries` },
      { name: "bytes on disk per MiB of transcript, today", value: perMiB / 1024, unit: "KiB/MiB" },
      { name: "tape payload (text + data) share of bytes on disk", value: (100 * payload) / onDisk, unit: "%" },
      { name: "zstd-1 per turn: payload ratio", value: z1 / payload, unit: "x" },
      { name: "zstd-3 per turn: payload ratio", value: z3 / payload, unit: "x" },
      { name: "zstd-3 per page of 64 turns: payload ratio", value: p3 / payload, unit: "x" },
      { name: "bytes on disk per MiB, zstd-1 per turn (estimated)", value: withPayload(z1) / 1024, unit: "KiB/MiB", ratio: today(withPayload(z1)) },
      { name: "bytes on disk per MiB, zstd-3 per turn (estimated)", value: withPayload(z3) / 1024, unit: "KiB/MiB", ratio: today(withPayload(z3)) },
      { name: "bytes on disk per MiB, zstd-3 per page (estimated)", value: withPayload(p3) / 1024, unit: "KiB/MiB", ratio: today(withPayload(p3)) },
      { name: "append p50 today (one line's entries)", value: median(appendMs) * 1000, unit: "µs" },
      { name: "zstd-3 compress per turn", value: compressUs, unit: "µs", ratio: ratio("append p50", compressUs, median(appendMs) * 1000) },
      { name: "zstd decompress per turn", value: decompressUs, unit: "µs" },
      {
        name: "read 100 turns p50 today",
        value: median(pageReadMs) * 1000,
        unit: "µs",
        ratio: ratio("+ decompress 100", decompressUs * 100, median(pageReadMs) * 1000),
      },
      {
        name: "search p95 today (20 hits)",
        value: percentile(searchMs, 95) * 1000,
        unit: "µs",
        ratio: ratio("+ decompress 20", decompressUs * 20, percentile(searchMs, 95) * 1000),
      },
      { name: "zstd-3 on an image object (256 KiB, compressed format)", value: zstd(image, 3).length / image.length, unit: "x" },
      { name: "zstd-3 on a text log object", value: zstd(log, 3).length / log.length, unit: "x" },
      { name: "zstd-3 on a Markdown file object (README)", value: zstd(readme, 3).length / readme.length, unit: "x" },
    ];
    for (const f of out) ctx.log(`${f.name}: ${f.value.toFixed(3)} ${f.unit}${f.ratio ? ` (${f.ratio.value.toFixed(3)}x ${f.ratio.of})` : ""}`);
    return out;
  },
};

export default section;
