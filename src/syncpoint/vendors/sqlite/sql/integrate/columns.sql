-- Columns of a target table in order: name, declared type, nullable, key position.
SELECT name, type, "notnull" = 0, pk FROM pragma_table_info(?) ORDER BY cid
