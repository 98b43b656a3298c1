-- The tape is the source of truth (DESIGN.md D4): one row per mutation. LSNs
-- come from lsn_counter, never from a sequence: the counter's one row is
-- updated inside the writing transaction, so its row lock orders writers and
-- a transaction that holds LSN n commits before any transaction can take
-- n + 1. Commit order is LSN order, which is what paging with `after` needs (I4).
CREATE TABLE lsn_counter (
  id   int    PRIMARY KEY CHECK (id = 1),
  last bigint NOT NULL
);
INSERT INTO lsn_counter (id, last) VALUES (1, 0);

CREATE TABLE tape (
  lsn          bigint  PRIMARY KEY,
  tenant       text    NOT NULL,
  kind         text    NOT NULL CHECK (kind IN ('turn', 'fact', 'forget', 'link', 'object')),
  ts           bigint  NOT NULL,          -- milliseconds since the epoch
  subject      text COLLATE "C",          -- session name, fact key, object digest; NULL once forgotten
  idem_key     text,
  idem_digest  bytea,                     -- a forgotten row's key as a digest: still reserved (I3)
  op_hash      bytea,                     -- SHA-256 of the operation, for retries (I3); dropped by forget
  content_hash bytea,                     -- first 16 bytes of SHA-256 of a turn's content (D7 repeats)
  bytes        bigint  NOT NULL DEFAULT 0,
  text         text,                      -- the searchable payload; NULL once forgotten
  data         jsonb,                     -- the rest of the record; NULL once forgotten
  sclass       int     NOT NULL DEFAULT 0,-- search class (src/search/search-class.ts)
  words        tsvector,                  -- the word index: Porter stems of the index text (search.ts)
  forgotten_by bigint
);

-- I3: one idempotency key names one operation per tenant, forever (a forgotten one as its digest).
CREATE UNIQUE INDEX tape_idem ON tape (tenant, idem_key) WHERE idem_key IS NOT NULL;
CREATE INDEX tape_idem_digest ON tape (tenant, idem_digest) WHERE idem_digest IS NOT NULL;
-- Paging a session, a fact's history, forget by session / prefix (COLLATE "C": byte order, as SQLite compares).
CREATE INDEX tape_subject ON tape (tenant, kind, subject, lsn) WHERE forgotten_by IS NULL;
CREATE INDEX tape_ts ON tape (tenant, ts) WHERE forgotten_by IS NULL;
CREATE INDEX tape_forgotten ON tape (forgotten_by) WHERE forgotten_by IS NOT NULL;
-- Search: the word index and, for substrings of identifiers and near forms, trigrams.
CREATE INDEX tape_words ON tape USING gin (words) WHERE forgotten_by IS NULL;
CREATE INDEX tape_trgm ON tape USING gin (text gin_trgm_ops) WHERE forgotten_by IS NULL;

-- Session listing, derived from turns.
CREATE TABLE sessions (
  tenant    text   NOT NULL,
  name      text   COLLATE "C" NOT NULL,
  turns     bigint NOT NULL,
  first_lsn bigint NOT NULL,
  last_lsn  bigint NOT NULL,
  bytes     bigint NOT NULL,
  PRIMARY KEY (tenant, name)
);

-- The current value of each fact: a pointer to its newest live tape row.
CREATE TABLE facts (
  tenant text   NOT NULL,
  key    text   COLLATE "C" NOT NULL,
  lsn    bigint NOT NULL,
  PRIMARY KEY (tenant, key)
);

-- Object refs are tape rows of kind 'object'; this is every blob some ref points at.
CREATE TABLE objects (
  digest  text   PRIMARY KEY,
  size    bigint NOT NULL,
  created bigint NOT NULL
);

-- HTTP tokens: only SHA-256 digests (DESIGN.md 2).
CREATE TABLE tokens (
  digest  bytea  PRIMARY KEY,
  id      text   NOT NULL UNIQUE,
  tenant  text   NOT NULL,
  created bigint NOT NULL,
  revoked bigint
);

-- Capture cursors (DESIGN.md 7.2), committed with the batch they cover.
CREATE TABLE capture_cursors (
  tenant   text   NOT NULL,
  source   text   COLLATE "C" NOT NULL,
  session  text   NOT NULL,
  path     text   NOT NULL,
  "offset" bigint NOT NULL,
  position bigint NOT NULL,
  chunk    bigint NOT NULL,
  updated  bigint NOT NULL,
  PRIMARY KEY (tenant, source)
);
