-- Whether a bookkeeping table has a column (bookkeeping made before the column existed).
SELECT count(*) FROM pragma_table_info(:name) WHERE name = :column
