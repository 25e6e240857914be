-- changes() and changes_query(): one table's records between two ticks.
CREATE INDEX ${items_table} ON ${items} (tablename, context, repl_key)
