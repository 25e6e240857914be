-- Foreign key columns of a table: its id, the referenced table, column and referenced
-- column (NULL: the referenced table's primary key), in order.
SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq
