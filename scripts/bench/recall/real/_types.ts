/**
 * The shapes of the real labelled retrieval set (DESIGN.md 11, "Measured on
 * real data"): transcripts of public repositories, read from their fetched
 * snapshots at a pinned commit (nothing fetched is committed here), and
 * queries written by reading them, each aimed at one line of one file.
 */
import type { Split, Style } from "../_types.ts";

/** Which reader a source file goes through. */
export type SourceFormat =
  /** Claude Code JSONL, captured through the real capture engine (subagent files beside it, as Claude Code lays them out). */
  | "claude"
  /** Codex rollout JSONL, captured through the real capture engine. */
  | "codex"
  /** Gemini CLI chat JSON/JSONL, captured through the real capture engine. */
  | "gemini"
  /** A markdown chat history (SpecStory `.specstory/history/*.md`, aider `.aider.chat.history.md`, ...), split into turns. */
  | "markdown";

/** One file of a public repository at a pinned commit. */
export interface Source {
  /** Short and unique across every source: how queries name it. */
  id: string;
  /** owner/name on GitHub. */
  repo: string;
  /** 40 hex. */
  commit: string;
  /** The file's path inside the repository. */
  path: string;
  format: SourceFormat;
  /** SPDX id of the repository's licence, as its LICENSE file says (e.g. "MIT"). */
  licence: string;
  /** The project the session worked on (queries are written per project). */
  project: string;
}

/**
 * One labelled query: its answer is the turn stored for a line of one source
 * file. A fact said in several lines (a tool's output and the reply quoting
 * it) lists each; a hit on any of them is the answer found.
 */
export interface RealQuery {
  style: Style;
  /** From SHA-256 of the query text, fixed once: even first byte tune, odd heldout. */
  split: Split;
  query: string;
  /** The Source.id of the file holding the answer. */
  source: string;
  /** 0-based indices of the lines of that file that answer it (at least one). */
  lines: number[];
}
