-- Capture cursors (DESIGN.md 7.2): where each transcript's capture stands.
-- One row per source: a harness session's main transcript (source = its id)
-- or one of its subagent transcripts (source = `<id>/<agent file name>`).
-- The row moves in the same transaction as the appends it covers, so a crash
-- leaves it exactly at the first entry not yet stored.
CREATE TABLE capture_cursors (
  tenant   TEXT    NOT NULL,
  source   TEXT    NOT NULL,
  session  TEXT    NOT NULL,  -- the capture session the entries go to, fixed at the first capture
  path     TEXT    NOT NULL,  -- the transcript file last read
  offset   INTEGER NOT NULL,  -- byte offset of the next line to capture
  position INTEGER NOT NULL,  -- that line's 0-based index
  chunk    INTEGER NOT NULL,  -- the next chunk of that line to store
  updated  INTEGER NOT NULL,  -- milliseconds since the epoch
  PRIMARY KEY (tenant, source)
) WITHOUT ROWID;
