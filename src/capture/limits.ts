/** The limits of capture (DESIGN.md 7.2), named once. */

const KiB = 1024;
const MiB = 1024 * KiB;

/** Entries one hook run appends at most; a transcript further behind catches up over later runs. */
export const RUN_MAX_ENTRIES = 64;
/** Content bytes one hook run appends at most. */
export const RUN_MAX_BYTES = 32 * MiB;
/** SessionEnd shares a 1.5 s budget with every other SessionEnd hook: a smaller bound. */
export const SESSION_END_MAX_BYTES = 8 * MiB;
/** Milliseconds after which a SessionEnd run stops reading lines and commits what it has. */
export const SESSION_END_DEADLINE_MS = 700;
/** A chunk is cut where the next character would take its UTF-8 size past this... */
export const CHUNK_RAW_MAX_BYTES = 3 * MiB;
/** ...or its JSON-escaped size past this, so one chunk always fits an 8 MiB HTTP body. */
export const CHUNK_JSON_MAX_BYTES = 7 * MiB;
/** Chunks stored per entry; the rest is dropped and the last chunk says `truncated: true`. */
export const CHUNKS_MAX = 64;
/** SessionStart's additionalContext, at most this many UTF-8 bytes. */
export const CONTEXT_MAX_BYTES = 8 * KiB;
/**
 * Most entries per transaction in `capture sync` (which is not bounded per
 * run). Each transaction ends with an fsync and a new segment of the word
 * index: 1,024 entries per commit backfilled a Codex rollout 25% faster than
 * 256, and 4,096 another 15-20% faster than 1,024 (measured with the
 * read-ahead worker, where the commits are what is left on the main
 * thread). Sync starts at 512 and grows or shrinks its batches (not below
 * 1,024) so a commit holds the write lock about 50-100 ms (run.ts): a hook
 * waiting for it gets in within about one commit.
 */
export const SYNC_BATCH_ENTRIES = 4096;
/** capture.log is rotated (to capture.log.1) past this size. */
export const LOG_MAX_BYTES = 1 * MiB;
/** The hook's stdin is a small JSON document; more than this is refused. */
export const HOOK_INPUT_MAX_BYTES = 1 * MiB;
/** How far before a tool_result capture looks for the tool_use it answers (tool-names.ts). */
export const TOOL_LOOKBACK_BYTES = 8 * MiB;
