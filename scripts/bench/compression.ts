/**
 * Bytes on disk, and what zstd would change (issue 20, DESIGN.md 15, D7).
 * Realistic captured transcripts (the recall set's Claude Code sessions, each
 * line through the capture path's own lineEntries, plus coding-agent chatter
 * from the distractor generator) are stored in a fresh SQLite store; then:
 * bytes on disk per MiB of transcript today and what the file is made of
 * (dbstat); built copies of the store with the payload kept by zstd at
 * levels 1 and 3 per turn, with a raw-content and a trained dictionary
 * (node:zlib: Bun.zstdCompressSync ignores one), and per page of 64 turns,
 * each vacuumed and measured as a file; text and image objects; and the
 * read and search cost beside today's.
 */
import { readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { lineEntries } from "../../src/capture/entries.ts";
import { indexText } from "../../src/search/text.ts";
import { idemDigest } from "../../src/store/hashes.ts";
import { tenantToken } from "../../src/store/sqlite/search/word-index.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import {
  type Layout,
  breakdown,
  builtCopy,
  compressPayload,
  compressor,
  decompressor,
  dictionarySupport,
  digestKeys,
  internSessions,
  parts as partsOf,
  payloadsOf,
  readPageUs,
  reindexWithDetail,
  staticDictionary,
  tapeColumns,
  trainDictionary,
  variantCopy,
} from "./_compressed-store.ts";
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

/**
 * The vacuumed file, part by part, in KiB per MiB of transcript: each table
 * and index of more than 1% of the file (the others together), its record
 * bytes and its page slack; then the tape's records column by column.
 */
function anatomyOf(path: string, perMiB: (bytes: number) => number): Figure[] {
  const all = partsOf(path);
  const total = all.reduce((n, p) => n + p.bytes, 0);
  const big = all.filter((p) => p.bytes > total / 100);
  const rest = all.filter((p) => p.bytes <= total / 100);
  const kib = (bytes: number) => perMiB(bytes) / 1024;
  const out: Figure[] = big.map((p) => ({
    name: `file part: ${p.name}`,
    value: kib(p.bytes),
    unit: "KiB/MiB",
    note: `records ${kib(p.payload).toFixed(0)}, page slack ${kib(p.unused).toFixed(0)}, ${((100 * p.bytes) / total).toFixed(1)}% of the file`,
  }));
  out.push({
    name: "file part: every other table and index",
    value: kib(rest.reduce((n, p) => n + p.bytes, 0)),
    unit: "KiB/MiB",
    note: `${rest.length} of them`,
  });
  for (const c of tapeColumns(path)) if (c.bytes > 0) out.push({ name: `tape records: ${c.column}`, value: kib(c.bytes), unit: "KiB/MiB" });
  return out;
}

/** A row's word-index columns as the store writes them (src/store/sqlite/search/word-index.ts indexRow). */
const indexed = (r: { tenant: string; text: string }): [string, string] => [indexText(r.text), tenantToken(r.tenant)];

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
    const perMiB = (bytes: number) => bytes / (transcriptBytes / MiB);

    // The payload a compressed format would keep compressed: each live row's text and data.
    const payloads = payloadsOf(store.db);
    const payload = payloads.reduce((n, p) => n + p.bytes.length, 0);

    // Costs through the engine today: an append, a page read, a search.
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
    const sample = payloads.filter((_, i) => i % 7 === 0).map((p) => p.bytes);
    let t0 = performance.now();
    const compressed = sample.map((p) => zstd(p, 3));
    const compressUs = ((performance.now() - t0) * 1000) / sample.length;
    t0 = performance.now();
    for (const c of compressed) Bun.zstdDecompressSync(c);
    const decompressUs = ((performance.now() - t0) * 1000) / sample.length;

    // Dictionaries, trained on the sessions of even index and judged on the others (held out):
    // the corpus repeats its sessions, so a dictionary judged on rows it saw would flatter itself.
    const scriptOf = (session: string | null) => /^cc\/(.+)-\d+$/.exec(session ?? "")?.[1];
    const trainIds = new Set(SESSIONS.filter((_, i) => i % 2 === 0).map((s) => s.id));
    const training = payloads.filter((p) => trainIds.has(scriptOf(p.session) ?? ""));
    const heldOut = payloads.filter((p) => !trainIds.has(scriptOf(p.session) ?? "")).map((p) => p.bytes);
    const trainSamples = training.filter((_, i) => i % Math.max(1, Math.floor(training.length / 4000)) === 0).map((p) => p.bytes);
    const trained = trainDictionary(trainSamples, ctx.tmp);
    const rawDict = Buffer.concat(trainSamples).subarray(0, 112_640);
    const support = dictionarySupport(trained ?? rawDict, heldOut[0]!);
    const ownDict = staticDictionary();
    const ratioOn = (rows: Buffer[], f: (b: Buffer) => Buffer) =>
      rows.reduce((n, b) => n + Math.min(b.length, f(b).length), 0) / rows.reduce((n, b) => n + b.length, 0);

    // Built stores: the same rows, their payload kept each way, vacuumed, measured as files.
    const todayPath = join(ctx.tmp, "today.sqlite");
    const today = builtCopy(store.db, payloads, todayPath);
    const parts = breakdown(todayPath);
    const share = (re: RegExp) => parts.filter((x) => re.test(x.name)).reduce((n, x) => n + x.bytes, 0) / today;
    // What each byte of the file is (issue 32): every table and index, the tape's columns, and page slack.
    const anatomy = anatomyOf(todayPath, perMiB);
    // What a part costs or a setting saves, each as a vacuumed copy measured as a file.
    const variantPath = join(ctx.tmp, "what-if.sqlite");
    const whatIf = (name: string, steps: Parameters<typeof variantCopy>[2]): Figure => {
      const bytes = variantCopy(todayPath, variantPath, steps);
      rmSync(variantPath);
      return { name: `bytes on disk per MiB, ${name} (built)`, value: perMiB(bytes) / 1024, unit: "KiB/MiB", ratio: ratio("today, vacuumed", bytes, today) };
    };
    const whatIfs = [
      whatIf("page size 8 KiB", ["PRAGMA page_size = 8192"]),
      whatIf("page size 16 KiB", ["PRAGMA page_size = 16384"]),
      whatIf("without tape_subject", ["DROP INDEX tape_subject"]),
      // Every index entry ends with the rowid, which is the LSN: the explicit lsn column repeats it.
      whatIf("tape_subject without its lsn column", [
        "DROP INDEX tape_subject",
        "CREATE INDEX tape_subject ON tape (tenant, kind, subject) WHERE forgotten_by IS NULL",
      ]),
      whatIf("without tape_idem", ["DROP INDEX tape_idem"]),
      whatIf("without tape_ts", ["DROP INDEX tape_ts"]),
      whatIf("without the word index", ["DROP TABLE words"]),
      whatIf("word index with detail=column (no phrase queries)", [(db) => reindexWithDetail(db, "column", indexed)]),
      whatIf("turns keep a session id, not its name", internSessions),
      whatIf("idempotency keys as 16-byte digests", [(db) => digestKeys(db, idemDigest)]),
      whatIf("session ids + key digests + 16 KiB pages", [...internSessions, (db) => digestKeys(db, idemDigest), "PRAGMA page_size = 16384"]),
      // Every lever measured here at once, the payload kept by zstd-3 with a dictionary of no user's bytes.
      whatIf("session ids + key digests + 16 KiB pages + zstd-3 static dictionary", [
        ...internSessions,
        (db) => digestKeys(db, idemDigest),
        (db) => compressPayload(db, compressor(3, staticDictionary())),
        "PRAGMA page_size = 16384",
      ]),
    ];
    const layouts: [string, Layout][] = [
      ["zstd-1 per turn", { perTurn: compressor(1) }],
      ["zstd-3 per turn", { perTurn: compressor(3) }],
      ["zstd-3 per turn, raw-content dictionary", { perTurn: compressor(3, rawDict) }],
      ["zstd-3 per turn, static dictionary (no user bytes)", { perTurn: compressor(3, ownDict) }],
      ...(trained ? ([["zstd-3 per turn, trained dictionary", { perTurn: compressor(3, trained) }]] as [string, Layout][]) : []),
      ["zstd-3 per page of 64 turns", { perPage: compressor(3), rows: PAGE }],
      // The floor of any payload compression: every row's payload gone, the rest of the file as it is.
      ["no payload at all (floor)", { perTurn: () => Buffer.alloc(0) }],
    ];
    const built: { name: string; bytes: number }[] = [];
    const z3Path = join(ctx.tmp, "zstd3.sqlite");
    for (const [name, layout] of layouts) {
      const path = name === "zstd-3 per turn" ? z3Path : join(ctx.tmp, "variant.sqlite");
      built.push({ name, bytes: builtCopy(store.db, payloads, path, layout) });
      if (path !== z3Path) rmSync(path);
    }
    // A page of 100 turns read from the built files: the rows alone, and the rows with their payload decompressed.
    const names = sessions.map((s) => s.name);
    const readToday = readPageUs(todayPath, names);
    const readZ3 = readPageUs(z3Path, names, decompressor());

    // Objects: an image (already compressed: random-looking bytes) and a text log.
    const image = crypto.getRandomValues(new Uint8Array(256 * 1024));
    const log = Buffer.from(
      Array.from({ length: 4000 }, (_, i) => `2026-11-30T12:${String(i % 60).padStart(2, "0")}:00Z INFO step ${i} ok in ${i % 977} ms\n`).join(""),
    );
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"));
    store.close();

    const vsToday = (v: number) => ratio("today, vacuumed", v, today, "<= 0.4 (issue 20)");
    const out: Figure[] = [
      { name: "captured transcript", value: transcriptBytes / MiB, unit: "MiB", note: `${entries} entries` },
      { name: "bytes on disk per MiB of transcript, today", value: perMiB(onDisk) / 1024, unit: "KiB/MiB" },
      { name: "bytes on disk per MiB, today vacuumed", value: perMiB(today) / 1024, unit: "KiB/MiB" },
      { name: "share of the file: tape table (payload and row)", value: 100 * share(/^tape$/), unit: "%" },
      { name: "share of the file: word index (words*)", value: 100 * share(/^words/), unit: "%" },
      { name: "share of the file: tape indexes", value: 100 * share(/^(tape_|sqlite_autoindex_tape)/), unit: "%" },
      { name: "tape payload (text + data) share of bytes on disk", value: (100 * payload) / today, unit: "%" },
      ...anatomy,
      ...whatIfs,
      ...built.map(
        (b): Figure => ({
          name: `bytes on disk per MiB, ${b.name} (built)`,
          value: perMiB(b.bytes) / 1024,
          unit: "KiB/MiB",
          ratio: vsToday(b.bytes),
          // Trained on half the sessions and applied to all rows, among them the repeats of those it saw.
          ...(b.name.includes("dictionary") && !b.name.includes("static")
            ? { note: "flattered: the corpus repeats the sessions the dictionary was made from" }
            : {}),
        }),
      ),
      { name: "zstd-3 per turn: payload ratio, held-out sessions", value: ratioOn(heldOut, compressor(3)), unit: "x" },
      { name: "zstd-3 + raw-content dictionary: payload ratio, held-out sessions", value: ratioOn(heldOut, compressor(3, rawDict)), unit: "x" },
      { name: "zstd-3 + static dictionary: payload ratio, held-out sessions", value: ratioOn(heldOut, compressor(3, ownDict)), unit: "x" },
      ...(trained
        ? [{ name: "zstd-3 + trained dictionary: payload ratio, held-out sessions", value: ratioOn(heldOut, compressor(3, trained)), unit: "x" }]
        : []),
      { name: "Bun.zstdCompressSync ignores a dictionary option (1 = output unchanged)", value: support.bunIgnores ? 1 : 0, unit: "bool" },
      {
        name: "node:zlib zstd with a dictionary round-trips, and only with it (1 = yes)",
        value: support.zlibRoundTrip && support.zlibNeedsDict ? 1 : 0,
        unit: "bool",
        note: trained ? "trained dictionary (zstd --train)" : "raw-content dictionary (no zstd CLI to train one)",
      },
      { name: "append p50 today (one line's entries)", value: median(appendMs) * 1000, unit: "µs" },
      { name: "zstd-3 compress per turn", value: compressUs, unit: "µs", ratio: ratio("append p50", compressUs, median(appendMs) * 1000) },
      { name: "zstd decompress per turn", value: decompressUs, unit: "µs" },
      { name: "read 100 turns p50 today (engine)", value: median(pageReadMs) * 1000, unit: "µs" },
      { name: "read 100 turns' rows p50, built today", value: readToday, unit: "µs" },
      { name: "read 100 turns' rows + decompress p50, built zstd-3 per turn", value: readZ3, unit: "µs", ratio: ratio("built today", readZ3, readToday) },
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
