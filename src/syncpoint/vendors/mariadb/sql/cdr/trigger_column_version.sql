-- A fragment of cdr add's triggers: a column group's version column (type: byte-wise compared text).
ADD COLUMN IF NOT EXISTS $raw{column} $raw{type} NOT NULL DEFAULT ''
