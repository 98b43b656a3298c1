-- What is captured is what is searched (DESIGN.md 11). Claude Code 2.x writes
-- a subagent's messages into the parent transcript as `agent_progress` lines,
-- which capture kept as `[progress] {...}` notes (noise); and its compaction
-- (the compact summary, the compaction prompt and the compaction agent's
-- reply) was a prompt, a reply or system text. The step in code
-- (src/store/sqlite/migrate-captured.ts) renders those rows again as capture
-- now renders their lines: the message itself (or, when the store holds the
-- subagent's own transcript, a note saying the message is stored there), and
-- kind `summary` (search class 7).
--
-- This statement does what needs no rendering: turns captured before capture
-- wrote kinds (no meta.kind) keep their meta, and their class is the one
-- src/search/search-class.ts turnClass now gives them: a compact summary, or the
-- compaction agent's prompt or reply, is a summary, no longer noise.
UPDATE tape SET sclass = 7
WHERE kind = 'turn' AND forgotten_by IS NULL AND data IS NOT NULL
  AND (instr(data, '"isCompactSummary":true') > 0 OR instr(data, '"agent_id":"acompact-') > 0)
  AND json_type(data, '$.meta.position') IN ('integer', 'real')
  AND json_type(data, '$.meta.kind') IS NULL
  AND coalesce(json_extract(data, '$.meta.noise'), '') = ''
  AND (json_type(data, '$.meta.isCompactSummary') = 'true'
    OR (substr(json_extract(data, '$.meta.agent_id'), 1, 9) = 'acompact-'
      AND coalesce(json_type(data, '$.meta.isMeta'), '') <> 'true'
      AND json_extract(data, '$.role') IN ('user', 'assistant')
      AND coalesce(json_array_length(data, '$.meta.tools'), 0) = 0));
