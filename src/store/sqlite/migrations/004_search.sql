-- Search that finds what was said (DESIGN.md 11). The word index holds the
-- text a person reads (decoded tool inputs, CJK bigrams, identifier parts:
-- src/search/text.ts), which is not the tape's text, so it is contentless
-- (https://sqlite.org/fts5.html#contentless_tables): rows are deleted with
-- the 'delete' command and the same index text, recomputed from the tape.
-- Porter stemming makes near forms match (reconnect/reconnected).
DROP TABLE fts;
DROP VIEW fts_source;
CREATE VIRTUAL TABLE words USING fts5 (body, content = '', columnsize = 0, tokenize = 'porter unicode61 remove_diacritics 2');
-- I9: a delete removes the row's entries from the index at once, not at a later merge.
INSERT INTO words (words, rank) VALUES ('secure-delete', 1);

-- The search class of each row (src/search/search-class.ts): what the user
-- remembered, a prompt, a reply, a tool call or result, system text, a link,
-- or noise that search leaves out by default. Derived from the row's role
-- and meta when it is written; filled for existing rows by this migration.
ALTER TABLE tape ADD COLUMN sclass INTEGER NOT NULL DEFAULT 0;
