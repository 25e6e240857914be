-- Column defaults of a table as SQLite keeps their text.
SELECT name, dflt_value FROM pragma_table_info(?) WHERE dflt_value IS NOT NULL
