-- Objects (DESIGN.md section 8). Object refs are tape rows (kind 'object',
-- subject = 'sha256:<hex>'); these tables track the blob files themselves.

-- Every blob file the store has published under objects/sha256/, with its
-- size: written in the same transaction as the ref that first needed it,
-- removed in the same transaction that deletes the file.
CREATE TABLE objects (
  digest  TEXT    PRIMARY KEY,
  size    INTEGER NOT NULL,
  created INTEGER NOT NULL
) WITHOUT ROWID;

-- Digests whose refs a forget hid and whose blob may now have no live ref
-- left. Filled by the trigger below inside the forget's own transaction, so a
-- crash between the forget's commit and the file's removal leaves the work
-- queued for the next open, never a forgotten blob on disk for good (I9).
CREATE TABLE object_gc (
  digest TEXT PRIMARY KEY
) WITHOUT ROWID;

CREATE TRIGGER tape_object_forgotten AFTER UPDATE OF forgotten_by ON tape
  WHEN OLD.kind = 'object' AND OLD.subject IS NOT NULL AND OLD.forgotten_by IS NULL AND NEW.forgotten_by IS NOT NULL
BEGIN
  INSERT OR IGNORE INTO object_gc (digest) VALUES (OLD.subject);
END;

-- "Does any tenant still hold a live ref to this digest?"
CREATE INDEX tape_object_refs ON tape (subject) WHERE kind = 'object' AND forgotten_by IS NULL;
