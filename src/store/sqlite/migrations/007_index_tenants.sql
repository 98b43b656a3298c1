-- One tenant's search never depends on another tenant's data (DESIGN.md 11,
-- I5): the word index gains a `tenant` column holding one token per row
-- (src/store/sqlite/search/word-index.ts tenantToken), so a store that holds
-- several tenants' rows answers every list and count of a search for the
-- caller's rows alone (`{tenant}: <token> AND ...`). The index is rebuilt
-- from the tape by the migration's step, as migration 004 built it.
DROP TABLE words;
CREATE VIRTUAL TABLE words USING fts5 (body, tenant, content = '', columnsize = 0, tokenize = 'porter unicode61 remove_diacritics 2');
-- Secure deletes only while forget deletes (migration 006).
INSERT INTO words (words, rank) VALUES ('secure-delete', 0);
