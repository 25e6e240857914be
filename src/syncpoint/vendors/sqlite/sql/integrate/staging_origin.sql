-- Staging made before staged rows carried the location where their change was first made.
ALTER TABLE ${staging} ADD COLUMN origin TEXT
