-- set_origin(): a row inserted and deleted by the applying transaction before it commits
-- (SQLite has no session variables a trigger could read).
CREATE TABLE ${origin} (
    dbid TEXT NOT NULL
)
