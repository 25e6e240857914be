-- Staging made before a round's direct path staged its operations there: the operation's
-- key as the source wrote it and its place among the operations of its record.
ALTER TABLE ${staging} ADD COLUMN IF NOT EXISTS sp_key longtext,
                       ADD COLUMN IF NOT EXISTS sp_sub smallint
