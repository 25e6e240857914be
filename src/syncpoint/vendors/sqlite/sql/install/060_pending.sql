-- Rows that INSERT/UPDATE OR REPLACE is about to delete without firing delete triggers
-- (unless recursive_triggers is on): written by the BEFORE INSERT (kind 'i') or BEFORE UPDATE
-- (kind 'u') trigger, turned into DELETE records by the AFTER trigger of the same kind. Rows
-- of an insert that was then ignored or turned into an upsert's update stay until the next
-- write to the table; the AFTER triggers only take rows of their own kind that are gone.
CREATE TABLE ${pending} (
    seq       INTEGER PRIMARY KEY,
    tablename TEXT NOT NULL,
    kind      TEXT NOT NULL,
    rid       INTEGER,
    old       TEXT,
    fix       TEXT
)
