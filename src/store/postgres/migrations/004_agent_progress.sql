-- What is captured is what is searched (DESIGN.md 11), as SQLite's migration
-- 8 (src/store/sqlite/migrations/008_agent_progress.sql): Claude Code's
-- `agent_progress` lines, kept as `[progress] {...}` notes, are rendered as the
-- subagent's messages they carry (or, when the tenant holds the subagent's own
-- transcript, a note saying the message is stored there), and compaction is
-- kind `summary` (search class 7), by the step in code
-- (src/store/postgres/migrate-captured.ts).
--
-- This statement does what needs no rendering: turns captured before capture
-- wrote kinds (no meta.kind) keep their meta, and their class is the one
-- src/search/search-class.ts turnClass now gives them: a compact summary, or the
-- compaction agent's prompt or reply, is a summary, no longer noise.
UPDATE tape SET sclass = 7
WHERE kind = 'turn' AND forgotten_by IS NULL AND data IS NOT NULL
  AND jsonb_typeof(data->'meta'->'position') = 'number'
  AND data->'meta'->'kind' IS NULL
  AND coalesce(data->'meta'->>'noise', '') = ''
  AND (data->'meta'->'isCompactSummary' = 'true'::jsonb
    OR (starts_with(data->'meta'->>'agent_id', 'acompact-')
      AND data->'meta'->'isMeta' IS DISTINCT FROM 'true'::jsonb
      AND data->>'role' IN ('user', 'assistant')
      AND coalesce(CASE WHEN jsonb_typeof(data->'meta'->'tools') = 'array' THEN jsonb_array_length(data->'meta'->'tools') END, 0) = 0));
