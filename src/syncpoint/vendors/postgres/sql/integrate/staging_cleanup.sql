-- Staged rows of earlier attempts of this application and sync group (crashed rounds, or a
-- second consumer whose compare-and-set must fail): run inside the apply transaction, after
-- the compare-and-set succeeded, so no round that can still commit loses its rows.
DELETE FROM ${staging} WHERE application_name = %s AND sync_name = %s AND round_id <> %s
