-- type (table, view, virtual, shadow) and wr (1 = WITHOUT ROWID) of a table in main.
SELECT type, wr FROM pragma_table_list WHERE schema = 'main' AND name = ?
