-- The tape is the source of truth (DESIGN.md D4): one row per mutation, its
-- LSN from AUTOINCREMENT so it is never reused, even after the highest row is
-- purged (https://sqlite.org/autoinc.html). Every other table is derived from
-- it inside the same transaction.
CREATE TABLE tape (
  lsn          INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant       TEXT    NOT NULL,
  kind         TEXT    NOT NULL CHECK (kind IN ('turn', 'fact', 'forget', 'link', 'object')),
  ts           INTEGER NOT NULL,          -- milliseconds since the epoch
  subject      TEXT,                      -- session name, fact key, object digest; NULL once forgotten
  idem_key     TEXT,
  op_hash      BLOB,                      -- SHA-256 of the operation, for retries (I3); kept after forget
  content_hash BLOB,                      -- first 16 bytes of SHA-256 of a turn's content (D7 repeats)
  bytes        INTEGER NOT NULL DEFAULT 0,-- payload bytes
  text         TEXT,                      -- the searchable payload; NULL once forgotten
  data         TEXT,                      -- JSON of the rest of the record; NULL once forgotten
  checksum     BLOB,                      -- 16 bytes of SHA-256 over subject, text and data: a damaged
                                          -- page must never be served as data (SQLite has no page checksums)
  forgotten_by INTEGER                    -- LSN of the forget that purged this row
);

-- I3: one idempotency key names one operation per tenant, forever.
CREATE UNIQUE INDEX tape_idem ON tape (tenant, idem_key) WHERE idem_key IS NOT NULL;
-- Paging a session, a fact's history, forget by session / prefix.
CREATE INDEX tape_subject ON tape (tenant, kind, subject, lsn) WHERE forgotten_by IS NULL;
-- forget {before}.
CREATE INDEX tape_ts ON tape (tenant, ts) WHERE forgotten_by IS NULL;

-- Session listing, derived from turns.
CREATE TABLE sessions (
  id        INTEGER PRIMARY KEY,
  tenant    TEXT    NOT NULL,
  name      TEXT    NOT NULL,
  turns     INTEGER NOT NULL,
  first_lsn INTEGER NOT NULL,
  last_lsn  INTEGER NOT NULL,
  bytes     INTEGER NOT NULL,
  UNIQUE (tenant, name)
);

-- The current value of each fact: a pointer to its newest live tape row.
CREATE TABLE facts (
  tenant TEXT    NOT NULL,
  key    TEXT    NOT NULL,
  lsn    INTEGER NOT NULL,
  PRIMARY KEY (tenant, key)
) WITHOUT ROWID;

-- Full-text index over tape.text (external content, https://sqlite.org/fts5.html#external_content_tables).
-- The content is a view of the rows that have text, so the index and its
-- content correspond one to one (FTS5's integrity-check relies on that) and a
-- forgotten row, its text gone, leaves the view as it leaves the index.
CREATE VIEW fts_source AS SELECT lsn, text FROM tape WHERE text IS NOT NULL;
CREATE VIRTUAL TABLE fts USING fts5 (text, content = 'fts_source', content_rowid = 'lsn', tokenize = 'unicode61 remove_diacritics 2');
-- I9: a delete really removes the entries from the index instead of leaving
-- them in old segments until a merge (https://sqlite.org/fts5.html#the_secure_delete_configuration_option).
INSERT INTO fts (fts, rank) VALUES ('secure-delete', 1);

-- Store-wide settings; 'store_id' ties the database to its zerodb.id file.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- HTTP tokens: only SHA-256 digests are stored (DESIGN.md section 2).
CREATE TABLE tokens (
  digest  BLOB    PRIMARY KEY,
  id      TEXT    NOT NULL UNIQUE,
  tenant  TEXT    NOT NULL,
  created INTEGER NOT NULL,
  revoked INTEGER
);
