-- A fragment of cdr add's triggers: a column group's version column.
ADD COLUMN $raw{column} text NOT NULL DEFAULT ''
