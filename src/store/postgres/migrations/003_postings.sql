-- Search's postings (search.ts, issue 16): one row per (tenant, stem, row)
-- of a live row's word index, so that "the newest rows of this tenant holding
-- this word" and "how many rows hold it" are index-only scans of the primary
-- key, and no heap page of the tape is visited to find candidates.
--
-- The table follows `tape.words` through triggers, in the transaction that
-- writes the tape: every insert of a row with words (appends, facts, links,
-- import, restore) adds its stems; a forget, which sets `words` to NULL,
-- deletes them in its own transaction (I9: a forgotten row's words leave
-- every index). A deleted tape row takes its postings with it.
CREATE TABLE postings (
  tenant text   NOT NULL,
  term   text   NOT NULL,
  lsn    bigint NOT NULL,
  PRIMARY KEY (tenant, term, lsn)
);
-- Search reads it by index-only scans, which skip the heap only for pages the
-- visibility map marks all-visible: autovacuum visits it after 1% new rows
-- (default 20%), so the newest postings, the ones search reads first, do not
-- stay unmarked for long.
ALTER TABLE postings SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.02);

CREATE FUNCTION zerodb_postings_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO postings (tenant, term, lsn)
    SELECT n.tenant, w.term, n.lsn FROM new_rows n, unnest(tsvector_to_array(n.words)) AS w(term)
    WHERE n.words IS NOT NULL AND n.forgotten_by IS NULL;
  RETURN NULL;
END $$;

CREATE FUNCTION zerodb_postings_drop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM postings WHERE tenant = OLD.tenant AND term = ANY (tsvector_to_array(OLD.words)) AND lsn = OLD.lsn;
  IF TG_OP = 'UPDATE' AND NEW.words IS NOT NULL AND NEW.forgotten_by IS NULL THEN
    INSERT INTO postings (tenant, term, lsn)
      SELECT NEW.tenant, w.term, NEW.lsn FROM unnest(tsvector_to_array(NEW.words)) AS w(term)
      ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER tape_postings_insert AFTER INSERT ON tape
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION zerodb_postings_insert();
CREATE TRIGGER tape_postings_update AFTER UPDATE OF words, forgotten_by, tenant ON tape
  FOR EACH ROW WHEN (OLD.words IS NOT NULL OR NEW.words IS NOT NULL) EXECUTE FUNCTION zerodb_postings_drop();
CREATE TRIGGER tape_postings_delete AFTER DELETE ON tape
  FOR EACH ROW WHEN (OLD.words IS NOT NULL) EXECUTE FUNCTION zerodb_postings_drop();

-- Rows written before this migration.
INSERT INTO postings (tenant, term, lsn)
  SELECT t.tenant, w.term, t.lsn FROM tape t, unnest(tsvector_to_array(t.words)) AS w(term)
  WHERE t.words IS NOT NULL AND t.forgotten_by IS NULL;
