-- The typed staging of one table's snapshot (the direct path): the target's columns as
-- written, and the chunk attempt each row was copied by. Unlogged: a crash empties it,
-- and what it held was never applied. Made anew by each snapshot run of the table,
-- dropped at its hand-over and by uninstall.
DROP TABLE IF EXISTS ${staging}
---
CREATE UNLOGGED TABLE ${staging} ($raw{columns}, ${attempt} text NOT NULL)
