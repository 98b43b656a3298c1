-- Forget leaves nothing that tells what was forgotten (issue 14 item 4).
-- A forgotten row keeps neither its idempotency key nor the hash of its
-- operation (a hash of a 4-digit PIN is the PIN after 10,000 guesses); only
-- a digest of the key (src/store/sqlite/_tape.ts idemDigest), so the key
-- stays reserved (I3). The step in code (forget/record.ts scrubForgotten)
-- scrubs the rows earlier releases forgot and rewrites forget records'
-- selectors into the LSNs they hid.
ALTER TABLE tape ADD COLUMN idem_digest BLOB;
CREATE UNIQUE INDEX tape_idem_digest ON tape (tenant, idem_digest) WHERE idem_digest IS NOT NULL;
-- The rows a forget hid, by that forget: how a forget record's LSNs are
-- read back (migration, import, export). Only forgotten rows are in it.
CREATE INDEX tape_forgotten ON tape (forgotten_by) WHERE forgotten_by IS NOT NULL;
