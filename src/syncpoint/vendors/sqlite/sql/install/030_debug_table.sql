CREATE TABLE ${debug_table} (
    repl_key INTEGER,
    line     TEXT
)
