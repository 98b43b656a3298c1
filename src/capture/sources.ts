/**
 * The transcripts of one harness session (DESIGN.md 7.2, HARNESSES.md):
 * `<dir>/<session id>.jsonl` and its subagents in
 * `<dir>/<session id>/subagents/agent-*.jsonl`, each read with a cursor of its own.
 */
import { lstatSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { IDEM_KEY_MAX_BYTES } from "../limits.ts";
import { secretInName } from "../redact/redact.ts";
import { sha256Hex } from "../util/hash.ts";
import { listDir } from "../util/fs.ts";
import type { LineReader } from "./lines.ts";

/** Which harness wrote a transcript, so which renderer reads its lines. */
export type Format = "claude-code" | "codex" | "gemini" | "opencode";

/** One transcript file and how its entries are named. */
export interface Source {
  /** The harness that wrote it; Claude Code when absent. */
  format?: Format;
  /** The cursor's key: the harness session id, or `<id>/<agent file name>`. */
  key: string;
  /** The first part of its idempotency keys: the key, or its digest when the key is too long. */
  idemPrefix: string;
  path: string;
  /** For a subagent transcript: the agent's id (from `agent-<id>.jsonl`). */
  agentId?: string;
  /**
   * For a Claude Code transcript: the session's `subagents` directory, where
   * a subagent's own transcript is (ownAgentFile), so a message a progress
   * line carries is stored from there, once (render.ts).
   */
  agentsDir?: string;
  /**
   * Opens a source that is not a file of lines (an opencode session in its
   * database) from a cursor offset; its lines name their own positions.
   */
  open?: (offset: number) => LineReader;
  /** For an opencode session: its database and session row, from which `open` is made again in capture sync's read-ahead worker. */
  opencode?: { db: string; session: { id: string; parentId: string | null; directory: string; title: string } };
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
const AGENT_FILE = /^agent-(.+)\.jsonl$/;
/** Room an idempotency key needs after its prefix: `:` position `:` chunk (or `image<i>`). */
const KEY_SUFFIX_BYTES = 1 + 16 + 1 + 7;

/**
 * The harness session a transcript belongs to: its file name without
 * `.jsonl`, which is how Claude Code names it. The file, not the event's
 * session_id, is what the cursor follows: a forked session fires SessionStart
 * with its parent's id (HARNESSES.md quirks), and `capture sync` only has files.
 */
export function harnessSessionId(transcriptPath: string, eventSessionId?: string): string {
  const name = basename(transcriptPath);
  const id = name.endsWith(".jsonl") ? name.slice(0, -".jsonl".length) : "";
  if (SAFE_ID.test(id)) return id;
  return eventSessionId ?? name;
}

/**
 * The idempotency-key prefix of a source key: the key itself while the whole
 * key fits in 255 bytes and holds no secret shape (a transcript named after a
 * token: the stores refuse such a key, issue 29 item 9); else its SHA-256,
 * which keeps the key's identity and none of its text.
 */
export function idemPrefix(key: string): string {
  const fits = Buffer.byteLength(key, "utf8") + KEY_SUFFIX_BYTES <= IDEM_KEY_MAX_BYTES;
  return fits && secretInName(key) === undefined ? key : `sha256:${sha256Hex(key)}`;
}

/** The `subagents` directory of a harness session (undefined for an id that cannot name one). */
function agentsDirOf(transcriptPath: string, harnessId: string): string | undefined {
  return SAFE_ID.test(harnessId) ? join(dirname(transcriptPath), harnessId, "subagents") : undefined;
}

/** The main transcript's source. */
export function mainSource(transcriptPath: string, harnessId: string): Source {
  const agentsDir = agentsDirOf(transcriptPath, harnessId);
  return { key: harnessId, idemPrefix: idemPrefix(harnessId), path: transcriptPath, ...(agentsDir ? { agentsDir } : {}) };
}

/** The subagent transcripts beside a main transcript, by file name (none when the directory is missing). */
export function subagentSources(transcriptPath: string, harnessId: string): Source[] {
  const dir = agentsDirOf(transcriptPath, harnessId);
  if (dir === undefined) return [];
  return listDir(dir)
    .filter((n) => AGENT_FILE.test(n))
    .sort()
    .map((n) => {
      const key = `${harnessId}/${n}`;
      return { key, idemPrefix: idemPrefix(key), path: join(dir, n), agentId: AGENT_FILE.exec(n)![1]!, agentsDir: dir };
    });
}

/**
 * Whether a subagent's own transcript is there to be captured (a regular
 * file `agent-<id>.jsonl` in the source's `subagents` directory, as
 * subagentSources finds it), asked when a line is read: the message a
 * progress line carries is then stored from that transcript alone (DESIGN.md
 * 11). Claude Code writes a subagent's line to its own transcript as it
 * writes the progress line, so the file is there by the time the parent's
 * line can be read; a replay gives the same entry while the file stays (and
 * a replayed key is never written again, I3). Answers are remembered for the
 * reader's life (one batch).
 */
export function ownAgentFile(source: Source): ((agentId: string) => boolean) | undefined {
  const dir = source.agentsDir;
  if (dir === undefined) return undefined;
  const known = new Map<string, boolean>();
  return (agentId) => {
    let found = known.get(agentId);
    if (found === undefined) {
      try {
        found = SAFE_ID.test(agentId) && lstatSync(join(dir, `agent-${agentId}.jsonl`)).isFile();
      } catch {
        found = false;
      }
      known.set(agentId, found);
    }
    return found;
  };
}
