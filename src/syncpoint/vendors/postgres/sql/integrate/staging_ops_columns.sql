-- Staging made before a round's direct path staged its operations there.
ALTER TABLE ${staging} ADD COLUMN IF NOT EXISTS key text, ADD COLUMN IF NOT EXISTS sub smallint
