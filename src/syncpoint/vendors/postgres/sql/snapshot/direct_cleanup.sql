-- Rows of earlier attempts of this table's chunks (a crashed run, a failed check): run in
-- the chunk's apply transaction, before its count is checked.
DELETE FROM ${staging} WHERE ${attempt} <> %s
