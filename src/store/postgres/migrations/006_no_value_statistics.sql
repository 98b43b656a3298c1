-- No value statistics of user text (issue 29, DESIGN.md 12). ANALYZE (and
-- autovacuum's) copies a sample of each column's values into pg_statistic
-- (most_common_vals, histogram_bounds, most_common_elems), which the zerodb
-- role reads through the pg_stats view: turn text, session names, fact keys,
-- idempotency keys, meta, link text and search stems of every tenant, mixed,
-- forgotten ones included until the next ANALYZE, and in pg_statistic's own
-- file after it. A column with statistics target 0 is skipped by ANALYZE
-- (https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-SET-STATISTICS).
-- Columns of numbers, LSNs, times, kinds and tenant names keep theirs, which
-- is what the plans of zerodb's queries use (the indexes lead with tenant).
--
-- Setting the target leaves the statistics an earlier ANALYZE gathered;
-- ALTER COLUMN ... TYPE to the column's own type deletes a column's
-- statistics, rewriting neither the table nor its indexes (same type and
-- collation). The postings triggers name `words`, and a column a trigger
-- names cannot change type, so they are made again around it.
DROP TRIGGER tape_postings_update ON tape;
DROP TRIGGER tape_postings_delete ON tape;

ALTER TABLE tape
  ALTER COLUMN subject SET STATISTICS 0, ALTER COLUMN subject TYPE text COLLATE "C",
  ALTER COLUMN idem_key SET STATISTICS 0, ALTER COLUMN idem_key TYPE text,
  ALTER COLUMN idem_digest SET STATISTICS 0, ALTER COLUMN idem_digest TYPE bytea,
  ALTER COLUMN op_hash SET STATISTICS 0, ALTER COLUMN op_hash TYPE bytea,
  ALTER COLUMN content_hash SET STATISTICS 0, ALTER COLUMN content_hash TYPE bytea,
  ALTER COLUMN text SET STATISTICS 0, ALTER COLUMN text TYPE text,
  ALTER COLUMN data SET STATISTICS 0, ALTER COLUMN data TYPE jsonb,
  ALTER COLUMN words SET STATISTICS 0, ALTER COLUMN words TYPE tsvector;

CREATE TRIGGER tape_postings_update AFTER UPDATE OF words, forgotten_by, tenant ON tape
  FOR EACH ROW WHEN (OLD.words IS NOT NULL OR NEW.words IS NOT NULL) EXECUTE FUNCTION zerodb_postings_drop();
CREATE TRIGGER tape_postings_delete AFTER DELETE ON tape
  FOR EACH ROW WHEN (OLD.words IS NOT NULL) EXECUTE FUNCTION zerodb_postings_drop();

ALTER TABLE postings ALTER COLUMN term SET STATISTICS 0, ALTER COLUMN term TYPE text;
ALTER TABLE sessions ALTER COLUMN name SET STATISTICS 0, ALTER COLUMN name TYPE text COLLATE "C";
ALTER TABLE facts ALTER COLUMN key SET STATISTICS 0, ALTER COLUMN key TYPE text COLLATE "C";
ALTER TABLE objects ALTER COLUMN digest SET STATISTICS 0, ALTER COLUMN digest TYPE text;
ALTER TABLE tokens ALTER COLUMN digest SET STATISTICS 0, ALTER COLUMN digest TYPE bytea;
ALTER TABLE capture_cursors
  ALTER COLUMN source SET STATISTICS 0, ALTER COLUMN source TYPE text COLLATE "C",
  ALTER COLUMN session SET STATISTICS 0, ALTER COLUMN session TYPE text,
  ALTER COLUMN path SET STATISTICS 0, ALTER COLUMN path TYPE text;
-- A change of type sets a column's storage back to its type's default: object bytes stay out of line, uncompressed (002_blobs.sql).
ALTER TABLE blob_chunks ALTER COLUMN bytes SET STATISTICS 0, ALTER COLUMN bytes TYPE bytea, ALTER COLUMN bytes SET STORAGE EXTERNAL;
