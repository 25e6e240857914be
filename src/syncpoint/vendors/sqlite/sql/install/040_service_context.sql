-- One row. context: the last tick, the safe horizon. stream_id: new at each fresh install.
-- location: this location's name, the default dbid. ticked_at: the clock of the last tick.
CREATE TABLE ${service_context} (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    context      INTEGER NOT NULL,
    stream_id    TEXT NOT NULL,
    location     TEXT NOT NULL,
    installed_at TEXT NOT NULL,
    ticked_at    TEXT
)
