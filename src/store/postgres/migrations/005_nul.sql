-- U+0000 in stored text (issue 29, DESIGN.md 12): `text` and `jsonb` cannot
-- hold it, so a row's text and data are now stored encoded
-- (src/store/postgres/nul.ts): NUL as U+FDD0, and a U+FDD0 or U+FDD1 of the
-- text itself behind the escape U+FDD1. Rows written before hold no NUL (the
-- database refused it) but may hold those two noncharacters; they are
-- escaped here, escape first, so that every row decodes to what was written.
-- The word index is made from the text as written and does not change.
UPDATE tape SET text = replace(replace(text, U&'\FDD1', U&'\FDD1\FDD1'), U&'\FDD0', U&'\FDD1\FDD0')
WHERE text IS NOT NULL AND (strpos(text, U&'\FDD0') > 0 OR strpos(text, U&'\FDD1') > 0);

-- JSON text holds the noncharacters as themselves (jsonb escapes only
-- controls, quotes and backslashes), never as syntax, so replacing them in
-- the text form changes strings and keys alone.
UPDATE tape SET data = replace(replace(data::text, U&'\FDD1', U&'\FDD1\FDD1'), U&'\FDD0', U&'\FDD1\FDD0')::jsonb
WHERE data IS NOT NULL AND (strpos(data::text, U&'\FDD0') > 0 OR strpos(data::text, U&'\FDD1') > 0);
