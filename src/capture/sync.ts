/**
 * `zerodb capture sync` and `capture status` (DESIGN.md 7.2): every
 * transcript under `<Claude config dir>/projects`, caught up at once (no
 * per-run bound), or compared with its cursor.
 */
import { existsSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { captureSession, projectSession } from "../project.ts";
import type { CursorRow } from "../store/capture-cursors.ts";
import { SYNC_BATCH_ENTRIES, RUN_MAX_BYTES } from "./limits.ts";
import { codexSource, rolloutId, threadOrigin } from "./codex.ts";
import { chatCwd, chatPlace, chatSessionId, geminiSource } from "./gemini.ts";
import { generationsOf } from "./cursor-identity.ts";
import { countLines, isJsonChat, isZstd, openLines, transcriptSize } from "./lines.ts";
import { opencodeSource, recordCounts } from "./opencode.ts";
import { addressedSession, listSessions, parseAddress, withDatabase } from "./opencode-db.ts";
import { ReadAhead, coreFree } from "./read-ahead.ts";
import { type RunOptions, type RunResult, captureSources, readAheadFirst } from "./run.ts";
import type { CaptureSink } from "./sink.ts";
import { type Format, type Source, harnessSessionId, mainSource, subagentSources } from "./sources.ts";
import { listDir } from "../util/fs.ts";

/** Every main transcript `<projects>/<slug>/<session id>.jsonl`, sorted. */
export function findTranscripts(projectsDir: string): string[] {
  const out: string[] = [];
  for (const slug of listDir(projectsDir).sort()) {
    const dir = join(projectsDir, slug);
    for (const n of listDir(dir).sort()) if (n.endsWith(".jsonl")) out.push(join(dir, n));
  }
  return out;
}

/**
 * A transcript's harness, harness session id (undefined while a Gemini chat has no first line), sources, a way to
 * find its working directory, and for an opencode session that cannot be read now, why.
 */
export function transcriptSources(path: string): { format: Format; harnessId?: string; sources: Source[]; cwd: () => string | undefined; problem?: string } {
  const address = parseAddress(path);
  if (address !== undefined) {
    // An opencode session `<database>#<session id>`: a subagent's session goes where its root session goes.
    let found: ReturnType<typeof addressedSession>;
    try {
      // `<database>#`: its sessions could not be listed; try again to say why.
      if (address.session === "") withDatabase(address.db, listSessions);
      found = address.session === "" ? undefined : addressedSession(address);
    } catch (err) {
      const code = (err as { code?: string }).code ?? "error";
      return { format: "opencode", sources: [], cwd: () => undefined, problem: `cannot read ${address.db} (${code}): left for a later run` };
    }
    if (found === undefined)
      return {
        format: "opencode",
        sources: [],
        cwd: () => undefined,
        problem:
          address.session === ""
            ? `cannot read the sessions of ${address.db} (busy, or not opencode's): left for a later run`
            : `${path}: no such opencode session (deleted): left alone`,
      };
    return { format: "opencode", harnessId: found.root.id, sources: [opencodeSource(address.db, found.row)], cwd: () => found.root.directory };
  }
  const name = basename(path);
  const thread = rolloutId(name);
  if (thread !== undefined) {
    // A subagent thread Codex spawned goes into its parent's session, marked as a sidechain.
    const origin = threadOrigin(path);
    return { format: "codex", harnessId: origin.parent ?? thread, sources: [codexSource(path, thread, origin)], cwd: () => transcriptCwd(path) };
  }
  const place = chatPlace(path);
  if (place !== undefined) {
    const harnessId = chatSessionId(path, place);
    return { format: "gemini", ...(harnessId ? { harnessId } : {}), sources: [geminiSource(path, place)], cwd: () => chatCwd(place) };
  }
  const harnessId = harnessSessionId(path);
  return { format: "claude-code", harnessId, sources: [mainSource(path, harnessId), ...subagentSources(path, harnessId)], cwd: () => transcriptCwd(path) };
}

/**
 * The working directory a transcript was recorded in: the first line that
 * names one (Claude Code: `cwd` on message lines; Codex: `payload.cwd` of
 * session_meta and turn_context). The slug of a Claude Code directory is
 * lossy and never decoded (HARNESSES.md).
 */
export function transcriptCwd(path: string): string | undefined {
  let seen = 0;
  try {
    using reader = openLines(path);
    for (const line of reader.lines(0)) {
      if (++seen > 1000) return undefined;
      const text = Buffer.from(line.bytes.buffer, line.bytes.byteOffset, line.bytes.byteLength).toString("utf8");
      if (!text.includes('"cwd"')) continue;
      try {
        const line = JSON.parse(text) as { cwd?: unknown; payload?: { cwd?: unknown } };
        const cwd = line.cwd ?? line.payload?.cwd;
        if (typeof cwd === "string" && cwd !== "") return cwd;
      } catch {
        // A broken line: look further.
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** One transcript of a sync: its sources and the capture session they go to, when it can be known. */
interface Planned {
  transcript: string;
  sources: Source[];
  session?: string;
  problem?: string;
}

async function plan(sink: CaptureSink, transcript: string): Promise<Planned> {
  const t = transcriptSources(transcript);
  const { sources } = t;
  if (sources.length === 0) return { transcript, sources, problem: t.problem ?? `${transcript}: nothing to read` };
  const row = await sink.cursor(sources[0]!.key);
  if (row) return { transcript, sources, session: row.session };
  const cwd = t.cwd();
  return { transcript, sources, ...(cwd && t.harnessId ? { session: captureSession(projectSession(cwd), t.harnessId) } : {}) };
}

/** What a sync did. */
export interface SyncResult {
  transcripts: number;
  appended: number;
  skipped: number;
  lines: number;
  bytes: number;
  warnings: string[];
}

/** Catches up every transcript given, in batches of at most SYNC_BATCH_ENTRIES entries and 32 MiB per transaction, reading ahead in a worker when a core is free. */
export async function syncTranscripts(
  sink: CaptureSink,
  transcripts: string[],
  opts: { redact: boolean; onProgress?: (bytesRead: number, total: number) => void },
): Promise<SyncResult> {
  const plans: Planned[] = [];
  for (const t of transcripts) plans.push(await plan(sink, t));
  let total = 0;
  // Progress is in transcript bytes; an opencode session (rows of a database) has none to count.
  for (const p of plans) for (const s of p.sources) if (s.open === undefined) total += Math.max(0, sizeOf(s.path) - ((await sink.cursor(s.key))?.offset ?? 0));
  const out: SyncResult = { transcripts: 0, appended: 0, skipped: 0, lines: 0, bytes: 0, warnings: [] };
  let done = 0;
  // One worker reads ahead for every transcript (started at the first read, closed at the end), when a core is free for it.
  using ahead = coreFree() ? new ReadAhead() : undefined;
  // The worker computes each entry's row checksum too, when the store checksums with its id.
  if (ahead) ahead.storeId = sink.storeId;
  const runOptions = (p: Planned & { session: string }): RunOptions => ({
    sink,
    sources: p.sources,
    session: p.session,
    redact: opts.redact,
    budget: { entries: Infinity, bytes: Infinity, batchEntries: SYNC_BATCH_ENTRIES, batchBytes: RUN_MAX_BYTES, growBatches: true },
    onCommit: (bytesRead) => (p.sources[0]!.open === undefined ? opts.onProgress?.(done + bytesRead, total) : undefined),
    readAhead: ahead,
  });
  const runnable = (p: Planned | undefined): p is Planned & { session: string } => p !== undefined && p.problem === undefined && p.session !== undefined;
  // The next transcript to capture after each one.
  const following: (Planned & { session: string })[] = [];
  for (let i = plans.length - 1, next: (Planned & { session: string }) | undefined; i >= 0; i--) {
    if (next) following[i] = next;
    const p = plans[i]!;
    if (runnable(p)) next = p;
  }
  for (const [i, p] of plans.entries()) {
    if (p.problem !== undefined) {
      out.warnings.push(p.problem);
      continue;
    }
    if (!runnable(p)) {
      out.warnings.push(`${p.transcript}: no line names a working directory yet, so its project is unknown: left for later`);
      continue;
    }
    const after = following[i];
    const r: RunResult = await captureSources({
      ...runOptions(p),
      // While this transcript's last batch commits, the worker reads the next one's first.
      readNext: async () => (after ? readAheadFirst(runOptions(after)) : undefined),
    });
    if (p.sources[0]!.open === undefined) done += r.fileBytes;
    out.transcripts++;
    out.appended += r.appended;
    out.skipped += r.skipped;
    out.lines += r.lines;
    out.bytes += r.bytes;
    out.warnings.push(...r.warnings);
  }
  return out;
}

/** One source's standing. */
export interface StatusRow {
  /** The harness session id, or `<id>/<agent file name>` for a subagent transcript, or `codex:<thread id>`. */
  source: string;
  /** The harness that wrote the transcript. */
  harness: Format;
  capture_session: string | null;
  transcript: string;
  lines_captured: number;
  lines_behind: number;
  /** The transcript file is gone (Claude Code deletes old ones): what was captured stays. */
  missing?: true;
  /** The file under that path was replaced by another, read as a later generation (cursor-identity.ts): what was captured stays. */
  replaced?: true;
}

/** Where every transcript (and every cursor whose file is gone) stands. */
export async function captureStatus(sink: CaptureSink, transcripts: string[]): Promise<StatusRow[]> {
  const rows: StatusRow[] = [];
  const cursors = new Map((await sink.cursors()).map((c): [string, CursorRow] => [c.source, c]));
  const seen = new Set<string>();
  for (const t of transcripts) {
    const { format, sources } = transcriptSources(t);
    for (const named of sources) {
      // A file replaced under its path is read as a later generation; the earlier ones are listed as replaced.
      const { current: s, earlier } = await generationsOf(sink.memory, named, cursors);
      for (const c of earlier) {
        seen.add(c.source);
        rows.push({
          source: c.source,
          harness: format,
          capture_session: c.session,
          transcript: c.path,
          lines_captured: c.position,
          lines_behind: 0,
          replaced: true,
        });
      }
      seen.add(s.key);
      const c = cursors.get(s.key);
      let behind = 0;
      let captured = c?.position ?? 0;
      try {
        if (format === "opencode") {
          // Positions of opencode records are their ids' numbers: count records instead.
          const counts = recordCounts(s.path, s.key.slice("opencode:".length), c?.offset ?? 0);
          ({ captured, behind } = counts);
        } else behind = countLines(s.path, c?.offset ?? 0);
      } catch {
        behind = 0;
      }
      rows.push({
        source: s.key,
        harness: format,
        capture_session: c?.session ?? null,
        transcript: format === "opencode" ? t : s.path,
        lines_captured: captured,
        lines_behind: behind,
      });
    }
  }
  for (const c of cursors.values()) {
    if (seen.has(c.source)) continue;
    if (c.source.startsWith("opencode:")) {
      // Not among the sessions listed: opencode deleted it (what was captured stays).
      rows.push({
        source: c.source,
        harness: "opencode",
        capture_session: c.session,
        transcript: `${c.path}#${c.source.slice("opencode:".length)}`,
        lines_captured: 0,
        lines_behind: 0,
        missing: true,
      });
      continue;
    }
    const gone = !existsSync(c.path);
    let behind = 0;
    if (!gone) {
      try {
        behind = countLines(c.path, c.offset);
      } catch {
        behind = 0;
      }
    }
    rows.push({
      source: c.source,
      harness: c.source.startsWith("codex:") ? "codex" : c.source.startsWith("gemini:") ? "gemini" : "claude-code",
      capture_session: c.session,
      transcript: c.path,
      lines_captured: c.position,
      lines_behind: behind,
      ...(gone ? { missing: true as const } : {}),
    });
  }
  return rows;
}

function sizeOf(path: string): number {
  try {
    return isZstd(path) || isJsonChat(path) ? transcriptSize(path) : statSync(path).size;
  } catch {
    return 0;
  }
}
