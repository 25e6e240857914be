-- A fragment of cdr add's triggers: the key version column cdr add puts on the table.
ADD COLUMN $raw{column} bigint NOT NULL DEFAULT 1
