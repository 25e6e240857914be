-- The columns of a table whose rows hold a value without having been written: a default
-- (an added column's existing rows read it) or a generated column.
SELECT name FROM pragma_table_xinfo(?) WHERE dflt_value IS NOT NULL OR hidden IN (2, 3)
