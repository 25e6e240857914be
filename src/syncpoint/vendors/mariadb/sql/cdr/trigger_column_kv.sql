-- A fragment of cdr add's triggers: the key version column cdr add puts on the table.
ADD COLUMN IF NOT EXISTS $raw{column} BIGINT NOT NULL DEFAULT 1
