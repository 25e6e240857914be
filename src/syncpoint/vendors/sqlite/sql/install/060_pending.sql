-- Rows that INSERT/UPDATE OR REPLACE is about to delete without firing delete triggers
-- (unless recursive_triggers is on): written by the BEFORE triggers, turned into DELETE
-- records by the AFTER triggers of the same row, empty between statements.
CREATE TABLE ${pending} (
    seq       INTEGER PRIMARY KEY,
    tablename TEXT NOT NULL,
    rid       INTEGER,
    old       TEXT,
    fix       TEXT
)
