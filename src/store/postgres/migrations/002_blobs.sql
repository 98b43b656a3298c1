-- Object bytes in the database (issue 16), so every `serve` on this database
-- answers for every object. Content-addressed as the refs are: one blob per
-- digest, shared by every tenant that holds a ref to it (objects.digest).
-- A blob is a numbered run of chunks of `chunk` bytes each (the last may be
-- shorter), so a Range read fetches only the chunks it covers.
ALTER TABLE objects ADD COLUMN blob bigint UNIQUE;  -- NULL: a blob schema 1 left on one serve's local disk (objects.ts adopts it)
ALTER TABLE objects ADD COLUMN chunk int;           -- bytes per chunk

CREATE SEQUENCE blob_ids;

-- Uploads in progress: chunks are committed as they arrive (no transaction
-- stays open for an upload's length), under a blob id named here until the
-- put that wrote them publishes it in objects. An upload idle too long (its
-- process died) is removed with its chunks.
CREATE TABLE blob_uploads (
  blob    bigint PRIMARY KEY,
  touched bigint NOT NULL                         -- milliseconds since the epoch of the last chunk
);

CREATE TABLE blob_chunks (
  blob  bigint NOT NULL,
  seq   int    NOT NULL,                          -- chunk seq holds bytes [seq * chunk, (seq + 1) * chunk)
  bytes bytea  NOT NULL,
  PRIMARY KEY (blob, seq)
);
-- Out of line and uncompressed: no time lost compressing bytes that rarely
-- shrink, and substring() of a chunk reads only the slices it needs.
ALTER TABLE blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;

-- Whether any tenant still refers to a digest (forget deletes a blob when none does).
CREATE INDEX tape_object_refs ON tape (subject) WHERE kind = 'object' AND forgotten_by IS NULL;
