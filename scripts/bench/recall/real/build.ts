/**
 * The memory the real labelled set runs against (DESIGN.md 11, "Measured on
 * real data"): the labelled projects' transcripts, read from their fetched
 * snapshots at the pinned commit and captured through the real capture
 * engine as `zerodb capture sync` reads them (a Claude Code session with its
 * subagent files beside it), among real turns of other sessions as
 * distractors, half appended before and half after. Nothing fetched is
 * stored in this repository: the snapshots are read where `fetch` put them
 * (`--mirror DIR` or ZERODB_BENCH_MIRROR, default `../.mirror` of the
 * checkout), and a missing one is reported, not papered over.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { localSink } from "../../../../src/capture/local-sink.ts";
import { syncTranscripts, transcriptSources } from "../../../../src/capture/sync.ts";
import { type SqliteStore, openSqliteStore } from "../../../../src/store/sqlite/store.ts";
import type { Memory } from "../../../../src/store/types.ts";
import { eachTurn } from "../build.ts";
import type { RealQuery, Source } from "./_types.ts";

const TENANT = "bench";
const BATCH = 256;
const PER_SESSION = 2_000;
/** Characters an answer turn holds, at least, for a turn holding all of it to count as the answer too. */
const MIN_COPY = 200;

/** The labelled projects: every `labelled-*.ts` beside this file. */
export async function labelledSets(): Promise<{ sources: Source[]; queries: RealQuery[] }> {
  const sources: Source[] = [];
  const queries: RealQuery[] = [];
  for (const f of readdirSync(import.meta.dir)
    .filter((n) => /^labelled-.*\.ts$/.test(n))
    .sort()) {
    const m = (await import(join(import.meta.dir, f))) as { SOURCES: Source[]; QUERIES: RealQuery[] };
    sources.push(...m.SOURCES);
    queries.push(...m.QUERIES);
  }
  return { sources, queries };
}

/** Where fetched snapshots are: the flag, the environment, or `../.mirror` beside the checkout. */
export function mirrorRoot(flag?: string): string {
  return resolve(flag ?? process.env.ZERODB_BENCH_MIRROR ?? join(import.meta.dir, "../../../../../.mirror"));
}

/** The bare git directory `fetch` made for a repository, or null when it is absent. */
function gitDir(mirror: string, repo: string): string | null {
  const base = join(mirror, repo.replace("/", "+"));
  for (const d of [join(base, "repo"), base]) if (existsSync(join(d, "HEAD"))) return d;
  return null;
}

/** A source file's bytes from its snapshot. */
export function readSource(mirror: string, s: Source): string {
  const dir = gitDir(mirror, s.repo);
  if (dir === null) throw new Error(`snapshot of ${s.repo} not found under ${mirror} (fetch github:${s.repo})`);
  const r = Bun.spawnSync(["git", "--git-dir", dir, "show", `${s.commit}:${s.path}`], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${s.repo}@${s.commit.slice(0, 8)}:${s.path}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

/** What a label's line is known by in the store: the message uuid it carries, or its capture idempotency key prefix. */
interface LineKey {
  uuid?: string;
  idem: string;
}

/** A built memory, every live turn's content, and each query's answer turns. */
export interface RealBuilt {
  store: SqliteStore;
  memory: Memory;
  content: Map<number, string>;
  /** The LSNs answering each query (same order as `queries`); empty when the label matched no stored turn. */
  answers: Set<number>[];
  queries: RealQuery[];
  captured: number;
  /** Lines capture could not read as their harness's (kept as notes). */
  warnings: number;
  distractors: number;
}

/** Appends turns in batches, each session holding PER_SESSION of them. */
async function appendTurns(memory: Memory, turns: { role: "user" | "assistant" | "tool"; content: string; session: string }[]): Promise<void> {
  for (let i = 0; i < turns.length; ) {
    const k = Math.floor(i / PER_SESSION);
    const end = Math.min(i + BATCH, turns.length, (k + 1) * PER_SESSION);
    const session = `noise-${k}/${turns[i]!.session}`.slice(0, 250).replace(/\/+$/, "");
    await memory.append({ session, entries: turns.slice(i, end).map(({ role, content }) => ({ role, content })) });
    i = end;
  }
}

/** Every live turn: content, and the LSNs each message uuid and idempotency-key prefix was stored under. */
async function readAll(
  memory: Memory,
): Promise<{ content: Map<number, string>; byUuid: Map<string, number[]>; byIdem: Map<string, number[]>; noise: Set<number> }> {
  const content = new Map<number, string>();
  const noise = new Set<number>();
  const byUuid = new Map<string, number[]>();
  const byIdem = new Map<string, number[]>();
  const add = (m: Map<string, number[]>, k: string, lsn: number) => {
    const l = m.get(k);
    if (l) l.push(lsn);
    else m.set(k, [lsn]);
  };
  await eachTurn(memory, (t, session) => {
    content.set(t.lsn, t.content);
    if (session.startsWith("noise-")) noise.add(t.lsn);
    const uuid = (t.meta as { uuid?: unknown } | undefined)?.uuid;
    if (typeof uuid === "string") add(byUuid, uuid, t.lsn);
    if (t.idem_key) add(byIdem, t.idem_key.replace(/:\d+$/, ""), t.lsn);
  });
  return { content, byUuid, byIdem, noise };
}

/**
 * Where a source goes in a harness's tree, as the harness lays it out: a
 * Claude Code session under its project with its subagents beside it, a
 * Codex rollout under sessions/. `main` files are the ones handed to sync
 * (a Claude Code session's subagent files are found beside it).
 */
function place(root: string, s: Source): { path: string; main: boolean } {
  if (s.format === "codex") return { path: join(root, "codex", "sessions", s.project, basename(s.path)), main: true };
  const sub = /([^/]+)\/subagents\/(agent-[^/]+\.jsonl)$/.exec(s.path);
  const dir = join(root, "claude", "projects", `${s.project}-${s.repo.replace(/[^A-Za-z0-9]/g, "-")}`);
  if (sub) return { path: join(dir, sub[1]!, "subagents", sub[2]!), main: false };
  return { path: join(dir, basename(s.path)), main: true };
}

/** The key of line `i` of a Claude Code file: a progress line is known by the subagent message it carries. */
function claudeKey(line: string, idem: string, i: number): LineKey {
  try {
    const d = JSON.parse(line) as { type?: string; uuid?: string; data?: { type?: string; message?: { uuid?: string } } };
    const uuid = d.type === "progress" && d.data?.type === "agent_progress" ? d.data.message?.uuid : d.uuid;
    return { ...(typeof uuid === "string" ? { uuid } : {}), idem: `${idem}:${i}` };
  } catch {
    return { idem: `${idem}:${i}` };
  }
}

/**
 * Builds the memory in `dir`: the labelled sources captured, `distractors`
 * real turns of other sessions around them. `noise` supplies the
 * distractor turns (scripts/bench/recall/real/distractor-turns.ts).
 */
export async function buildReal(
  dir: string,
  opts: {
    mirror: string;
    distractors: number;
    noise: (n: number) => { role: "user" | "assistant" | "tool"; content: string; session: string }[];
  },
): Promise<RealBuilt> {
  const { sources, queries } = await labelledSets();
  const store = openSqliteStore(join(dir, "data"));
  const memory = store.memory(TENANT);
  const turns = opts.distractors > 0 ? opts.noise(opts.distractors) : [];
  const half = Math.floor(turns.length / 2);
  await appendTurns(memory, turns.slice(0, half));
  const placed = new Map<string, { source: Source; text: string; path: string }>();
  const mains: string[] = [];
  for (const s of sources) {
    if (s.format !== "claude" && s.format !== "codex") throw new Error(`${s.id}: format ${s.format} is not captured by this bench yet`);
    const text = readSource(opts.mirror, s);
    const p = place(dir, s);
    mkdirSync(join(p.path, ".."), { recursive: true });
    writeFileSync(p.path, text);
    if (p.main) mains.push(p.path);
    placed.set(s.id, { source: s, text, path: p.path });
  }
  // Each file's idempotency-key prefix, as capture names it (src/capture/sources.ts).
  const prefixes = new Map<string, string>();
  for (const m of mains) for (const src of transcriptSources(m).sources) prefixes.set(src.path, src.idemPrefix);
  const keys = new Map<string, LineKey[]>();
  for (const [id, p] of placed) {
    const prefix = prefixes.get(p.path);
    if (prefix === undefined) throw new Error(`${id}: capture does not read ${p.path}`);
    keys.set(
      id,
      p.text.split("\n").map((l, i) => (p.source.format === "claude" ? claudeKey(l, prefix, i) : { idem: `${prefix}:${i}` })),
    );
  }
  const sync = await syncTranscripts(localSink(store, TENANT), mains, { redact: true });
  // Real files hold lines their authors' redaction broke: capture keeps each as a note and says so.
  await appendTurns(memory, turns.slice(half));
  const { content, byUuid, byIdem, noise: noiseLsns } = await readAll(memory);
  const answers = queries.map((q) => {
    const ks = keys.get(q.source);
    if (!ks) throw new Error(`query ${JSON.stringify(q.query)} names unknown source ${q.source}`);
    const out = new Set<number>();
    for (const i of q.lines) {
      const k = ks[i];
      if (!k) continue;
      for (const lsn of (k.uuid ? byUuid.get(k.uuid) : undefined) ?? byIdem.get(k.idem) ?? []) out.add(lsn);
    }
    return out;
  });
  // A fact said whole again elsewhere (a subagent's report copied into its parent's Task result) is found there too.
  const labelled = [...content].filter(([lsn]) => !noiseLsns.has(lsn));
  for (const a of answers)
    for (const lsn of [...a]) {
      const text = content.get(lsn)!;
      if (text.length < MIN_COPY) continue;
      for (const [other, c] of labelled) if (!a.has(other) && c.length >= text.length && c.includes(text)) a.add(other);
    }
  return { store, memory, content, answers, queries, captured: sync.appended, warnings: sync.warnings.length, distractors: turns.length };
}
