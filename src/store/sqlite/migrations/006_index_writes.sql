-- Writes to the word index no longer pay for secure deletes. FTS5's
-- secure-delete option (https://sqlite.org/fts5.html#the_secure_delete_configuration_option)
-- took about 45% of the index's cost on every insert (0.27 s of 0.57 s for
-- 26 MiB of captured text), though only forget deletes from the index. Forget
-- turns it on for its own deletes and off again in the same transaction
-- (src/store/sqlite/forget/forget.ts purge), and a delete made with it on removes the
-- row's entries from every segment, whenever they were written: I9 holds.
INSERT INTO words (words, rank) VALUES ('secure-delete', 0);
