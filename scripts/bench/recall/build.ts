/**
 * The memory the queries run against: the scripted sessions captured through
 * the real capture engine, among realistic distractor turns appended in
 * batches of 256 over several sessions (half before the sessions, half after,
 * so neither recency nor age favours the labelled turns).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { localSink } from "../../../src/capture/local-sink.ts";
import { syncTranscripts } from "../../../src/capture/sync.ts";
import { type SqliteStore, openSqliteStore } from "../../../src/store/sqlite/store.ts";
import type { Memory } from "../../../src/store/types.ts";
import type { Turn } from "../../../src/schema/results.ts";
import { distractors } from "./distractors.ts";
import { QUERIES } from "./queries.ts";
import { SESSIONS, transcriptJsonl } from "./transcripts.ts";

const TENANT = "bench";
const BATCH = 256;
const PER_SESSION = 2_000;
const PROJECTS = ["shop-api", "storefront", "infra", "billing", "feed-service", "mediahub", "tools"];

/** A built memory and every turn it holds. */
export interface Built {
  store: SqliteStore;
  memory: Memory;
  /** Content of every live turn, by LSN. */
  content: Map<number, string>;
  /** Transcript lines captured and distractor turns appended. */
  captured: number;
  distractors: number;
}

async function appendDistractors(memory: Memory, turns: { role: "user" | "assistant" | "tool"; content: string }[], from: number): Promise<void> {
  let i = 0;
  while (i < turns.length) {
    const k = Math.floor((from + i) / PER_SESSION);
    // A batch ends at its session's last turn, so each session holds PER_SESSION turns.
    const end = Math.min(i + BATCH, turns.length, (k + 1) * PER_SESSION - from);
    await memory.append({ session: `${PROJECTS[k % PROJECTS.length]}-noise/${k}`, entries: turns.slice(i, end) });
    i = end;
  }
}

/** Calls `each` for every live turn of the memory, session by session, in order. */
export async function eachTurn(memory: Memory, each: (turn: Turn, session: string) => void): Promise<void> {
  let after: string | undefined;
  do {
    const page = await memory.sessions({ limit: 1000, ...(after ? { after } : {}) });
    for (const s of page.sessions) {
      let lsn = 0;
      for (;;) {
        const r = await memory.read({ session: s.name, after: lsn, limit: 1000 });
        for (const t of r.turns) each(t, s.name);
        if (r.next === null) break;
        lsn = r.next;
      }
    }
    after = page.next ?? undefined;
  } while (after);
}

/** Every live turn's content, by LSN. */
async function readAll(memory: Memory): Promise<Map<number, string>> {
  const content = new Map<number, string>();
  await eachTurn(memory, (t) => content.set(t.lsn, t.content));
  return content;
}

/**
 * Builds the memory in `dir` among `noise` distractor turns (real turns of
 * other sessions in the bench; the generated ones of distractors.ts when
 * `noise` is a count).
 */
export async function buildMemory(dir: string, noise: number | { role: "user" | "assistant" | "tool"; content: string }[]): Promise<Built> {
  const store = openSqliteStore(join(dir, "data"));
  const memory = store.memory(TENANT);
  if (typeof noise === "number")
    noise = distractors(
      noise,
      QUERIES.map((q) => q.answer),
    );
  const n = noise.length;
  const half = Math.floor(n / 2);
  await appendDistractors(memory, noise.slice(0, half), 0);
  // Transcripts go through the real capture engine, as `zerodb capture sync` reads them.
  const paths = SESSIONS.map((s) => {
    const project = join(dir, "claude", "projects", s.cwd.replace(/[^A-Za-z0-9]/g, "-"));
    mkdirSync(project, { recursive: true });
    const path = join(project, `${s.id}.jsonl`);
    writeFileSync(path, transcriptJsonl(s));
    return path;
  });
  const sync = await syncTranscripts(localSink(store, TENANT), paths, { redact: true });
  if (sync.warnings.length > 0) throw new Error(`capture warned: ${sync.warnings.join("; ")}`);
  await appendDistractors(memory, noise.slice(half), half);
  return { store, memory, content: await readAll(memory), captured: sync.appended, distractors: n };
}
